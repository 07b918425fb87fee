// The one place tests find the real third-party data (../shared/data beside the clone, see its
// README for sources), read in place.
import { fileURLToPath } from "node:url";

/** The absolute path of `relative` under the shared data folder (a folder when it ends in `/`). */
export function sharedData(relative = ""): string {
  return fileURLToPath(new URL(`../../shared/data/${relative}`, import.meta.url));
}
