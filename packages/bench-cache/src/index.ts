export {
  CACHE_FILE_NAME,
  CACHE_FORMAT,
  openCache,
  SqliteCache,
  type SqliteCacheOptions,
} from "./sqlite-cache.js";
