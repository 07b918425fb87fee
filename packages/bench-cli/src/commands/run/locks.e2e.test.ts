import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bin, cli, fixtures, scratchDir } from "../../__fixtures__/cli-process.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

let dir: string;
beforeAll(async () => {
  dir = await scratchDir();
});

describe("fastrag-bench run: one run per target and output directory", () => {
  /** Starts `run` of hold.config.mjs, whose first call waits for `release` once `started`. */
  async function startHeld(to: string, tag: string) {
    const config = join(fixtures, "hold.config.mjs");
    const env = {
      FASTRAG_TEST_STARTED: join(dir, `${tag}-started`),
      FASTRAG_TEST_RELEASE: join(dir, `${tag}-release`),
    };
    const child = spawn(process.execPath, [bin, "run", config, "--out-dir", to], {
      env: { ...process.env, NO_COLOR: "1", ...env },
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((done) => child.on("exit", done));
    while (!existsSync(env.FASTRAG_TEST_STARTED) && child.exitCode === null) {
      await new Promise((wait) => setTimeout(wait, 20));
    }
    return {
      child,
      config,
      env,
      exited,
      stderr: () => stderr,
      /** Lets the held call return; kills the run should it not end (a failed test). */
      release: async () => {
        await writeFile(env.FASTRAG_TEST_RELEASE, "");
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        const code = await exited;
        clearTimeout(timer);
        return code;
      },
    };
  }

  it("refuses to run a target that another run is running into the same directory", async () => {
    const to = join(dir, "locked");
    const held = await startHeld(to, "locked");
    try {
      const lock = join(to, ".journal", "held.lock");
      expect(existsSync(lock), held.stderr()).toBe(true);
      const second = cli(["run", held.config, "--out-dir", to], held.env);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(
        `another fastrag-bench run (pid ${held.child.pid} on ${hostname()}`,
      );
      expect(second.stderr).toContain(`is running target "held" into this directory`);
      expect(second.stderr).toContain(`delete ${lock}`);
      expect(second.stderr.trim().split("\n")).toHaveLength(1);
      // The refused run touched nothing: the first one's lock and journal are still there.
      expect(existsSync(lock)).toBe(true);
      expect(existsSync(join(to, ".journal", "held.jsonl"))).toBe(true);
    } finally {
      expect(await held.release(), held.stderr()).toBe(0);
    }
    expect(JSON.parse(await readFile(join(to, "held.json"), "utf8")).samples).toHaveLength(3);
    expect(existsSync(join(to, ".journal"))).toBe(false);
  });

  it("stops on SIGTERM as on Ctrl-C: exit 143, journal kept, lock released", async () => {
    const to = join(dir, "terminated");
    const held = await startHeld(to, "terminated");
    let code: number | null;
    try {
      held.child.kill("SIGTERM");
      await new Promise((wait) => setTimeout(wait, 200));
    } finally {
      code = await held.release();
    }
    expect(code, held.stderr()).toBe(143);
    expect(held.stderr()).toMatch(/terminated: letting in-flight samples finish/);
    expect(existsSync(join(to, ".journal", "held.lock"))).toBe(false);
    expect(existsSync(join(to, ".journal", "held.jsonl"))).toBe(true);
    const resumed = cli(["run", held.config, "--out-dir", to], held.env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/held: resuming from /);
  });

  it("takes over a lock whose process has ended; a live one's holds however old", async () => {
    const to = join(dir, "stale-lock");
    const config = join(fixtures, "hold.config.mjs");
    const env = {
      FASTRAG_TEST_STARTED: join(dir, "stale-started"),
      FASTRAG_TEST_RELEASE: join(dir, "stale-release"),
    };
    await writeFile(env.FASTRAG_TEST_RELEASE, "");
    const lock = join(to, ".journal", "held.lock");
    // This machine as the lock module names it: host name, boot, pid namespace (Linux).
    const read = (f: () => string) => {
      try {
        return f();
      } catch {
        return "";
      }
    };
    const machine = `${hostname()}|${read(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim())}|${read(() => readlinkSync("/proc/self/ns/pid"))}`;
    const holder = (pid: number, where: string) =>
      JSON.stringify({
        pid,
        host: hostname(),
        machine: where,
        started: "2026-01-01T00:00:00.000Z",
        token: "other",
      });

    // Left by a process of this machine that has ended (killed with -9, say).
    const gone = spawnSync(process.execPath, ["-e", ""]).pid as number;
    await mkdir(dirname(lock), { recursive: true });
    await writeFile(lock, holder(gone, machine));
    const taken = cli(["run", config, "--out-dir", to], env);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stderr).toContain(
      `note: held: took over the lock ${lock}, whose process (pid ${gone}) has ended`,
    );
    expect(existsSync(lock)).toBe(false);

    // A live process of this machine (this test's), its lock untouched for an hour: held.
    await mkdir(dirname(lock), { recursive: true });
    await writeFile(lock, holder(process.pid, machine));
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(lock, hourAgo, hourAgo);
    const refused = cli(["run", config, "--out-dir", to], env);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`(pid ${process.pid} on ${hostname()}, since 2026-01-01`);
    // Another machine's (a container of the same host name), fresh: held.
    await writeFile(lock, holder(gone, `${hostname()}|another-boot|pid:[1]`));
    const elsewhere = cli(["run", config, "--out-dir", to], env);
    expect(elsewhere.code, elsewhere.stderr).toBe(2);
  });

  it("stops at once on Ctrl-C while it watches another machine's old lock", async () => {
    const to = join(dir, "watched-lock");
    const lock = join(to, ".journal", "held.lock");
    const other = JSON.stringify({
      pid: 42,
      host: "ci-runner-2",
      machine: "ci-runner-2|boot|pid:[1]",
      started: "2026-01-01T00:00:00.000Z",
      token: "other",
    });
    await mkdir(dirname(lock), { recursive: true });
    await writeFile(lock, other);
    const tenMinutesAgo = new Date(Date.now() - 600_000);
    await utimes(lock, tenMinutesAgo, tenMinutesAgo);
    const child = spawn(
      process.execPath,
      [bin, "run", join(fixtures, "hold.config.mjs"), "--out-dir", to],
      { env: { ...process.env, NO_COLOR: "1" } },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((done) => child.on("exit", done));
    const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    try {
      while (!stderr.includes("watching it for") && child.exitCode === null) {
        await new Promise((wait) => setTimeout(wait, 20));
      }
      expect(stderr).toContain("looks abandoned; watching it for 20 s");
      const interrupted = Date.now();
      child.kill("SIGINT");
      expect(await exited, stderr).toBe(130);
      // Not the rest of the 20 s watch (nor the SIGKILL at 15 s).
      expect(Date.now() - interrupted).toBeLessThan(10_000);
    } finally {
      clearTimeout(killer);
    }
    expect(stderr).toContain(`held: stopped while watching the lock ${lock}; no target ran`);
    // The other machine's lock is left as it was, and nothing ran.
    expect(await readFile(lock, "utf8")).toBe(other);
    expect(existsSync(join(to, ".journal", "held.jsonl"))).toBe(false);
  });
});
