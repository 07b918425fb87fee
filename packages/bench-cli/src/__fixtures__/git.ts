// git for tests that make a repository: a fixed author and committer, so a commit never depends
// on the machine's git configuration.
import { execFileSync, spawnSync } from "node:child_process";

/** Whether git can be run here (tests that need it are skipped where it cannot). */
export const hasGit: boolean = spawnSync("git", ["--version"]).status === 0;

/** `git ...args` in `cwd`: its output, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  }).trim();
}
