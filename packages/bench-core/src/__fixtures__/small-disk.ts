import { existsSync } from "node:fs";

export {
  fileSizeLimitUnavailable,
  mountSmallDisk,
  type SmallDisk,
} from "../../../../test-support/small-disk.js";

/** The built package, which a child process under `ulimit -f` imports. */
export const BUILT: URL = new URL("../../dist/index.js", import.meta.url);
export const builtMissing = (): string | undefined =>
  existsSync(BUILT) ? undefined : "needs the built package (pnpm build): the child imports dist/";
