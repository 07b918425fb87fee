// The one place tests find the real third-party data (shared/data beside the clone, see its
// README for sources), read in place. Found by walking up: a git worktree sits deeper than the
// main clone.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = ((): URL => {
  let at = new URL("../", import.meta.url);
  for (let i = 0; i < 8; i++, at = new URL("../", at)) {
    const candidate = new URL("shared/data/", at);
    if (existsSync(new URL("README.md", candidate))) return candidate;
  }
  throw new Error("shared/data not found above the repository");
})();

/** The absolute path of `relative` under the shared data folder (a folder when it ends in `/`). */
export function sharedData(relative = ""): string {
  return fileURLToPath(new URL(relative, root));
}
