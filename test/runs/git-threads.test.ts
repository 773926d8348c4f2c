import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import type { Sample } from "../../src/dataset/sample.js";
import { runGit, type RunResult } from "../../src/git/process.js";
import { gitThreadStats, useGitThreads } from "../../src/git/threads.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

/**
 * Git processes started from git threads (issue 23: with every start on the event loop, `run --jobs 2`
 * was no faster than `--jobs 1`): the same results as on the event loop, and a parallel run uses them.
 */

let fx: Fixture;
let samples: Sample[];
let dirs: ReturnType<typeof tempDirs>;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  dirs = tempDirs();
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

/** What `runGit` gives for a list of calls: each result, or the failure's code and message. */
async function outcomes(): Promise<unknown[]> {
  const binary = Buffer.from([0, 1, 2, 255, 10, 0, 128]);
  const calls: Array<() => Promise<RunResult>> = [
    () => runGit(["log", "--format=%H %s", "-z"], { cwd: fx.dir }),
    () => runGit(["hash-object", "-w", "--stdin"], { cwd: fx.dir, input: binary }),
    () => runGit(["cat-file", "blob", "d9b6e4b6d6bbe6a2ef0d5fe9e1bae7b47b8e9b01"], { cwd: fx.dir, okCodes: [0, 128] }),
    () => runGit(["rev-parse", "--verify", "no-such-branch"], { cwd: fx.dir }),
    () => runGit(["var", "GIT_AUTHOR_IDENT"], { cwd: fx.dir, env: { GIT_AUTHOR_NAME: "Threaded", GIT_AUTHOR_EMAIL: "t@example.com", GIT_AUTHOR_DATE: "2020-01-01T00:00:00Z" } }),
    () => runGit(["status"], { cwd: `${fx.dir}/no-such-directory` }),
  ];
  const out: unknown[] = [];
  for (const call of calls) {
    try {
      const r = await call();
      out.push({ code: r.code, stdout: r.stdout.toString("base64"), stderr: r.stderr });
    } catch (err) {
      out.push({ failed: (err as { code?: string }).code, message: (err as Error).message });
    }
  }
  return out;
}

describe("git threads", () => {
  it("run git with the same output, exit codes, input, environment and failures as the event loop", async () => {
    const here = await outcomes();
    const stop = useGitThreads(2);
    const before = gitThreadStats().runs;
    try {
      expect(gitThreadStats().threads).toBe(2);
      expect(await outcomes()).toEqual(here);
      expect(gitThreadStats().runs - before).toBe(here.length);
    } finally {
      await stop();
    }
    expect(gitThreadStats().threads).toBe(0);
    expect(here[1]).toMatchObject({ code: 0 });
    expect(here[3]).toMatchObject({ failed: "GIT_FAILED" });
  });

  it("a run of several attempts at once starts its git processes from git threads, and stops them at the end", { timeout: 180_000 }, async () => {
    const agent = createAgent("baseline");
    const merges = samples.filter((s) => s.sample_type === "merge");
    const runOf = async (jobs: number, these: Sample[]): Promise<number> => {
      const store = RunStore.open(`${dirs.out}-${jobs}`, runConfig({ samples: ["test"], agent: agent.name }, (p) => p));
      const before = gitThreadStats().runs;
      const summary = await runBenchmark({ samples: these, spec: { timeout_s: 60, max_turns: 10, scenarios: ["MCR"] }, where: { repo: fx.dir }, agent, store, jobs, judges: [] });
      expect(summary.records.map((r) => r.status)).toEqual(these.map(() => "success"));
      return gitThreadStats().runs - before;
    };
    expect(merges.length).toBeGreaterThan(1);
    expect(await runOf(1, merges.slice(0, 1))).toBe(0);
    // Every git process gitgood starts in an attempt but the long-lived ones: 3 for the baseline's MCR
    // attempt (the store's walk, its pack, merge-tree) since its checkout and merge state are written and
    // its merge committed without git, and the recorded merge's diff comes from the process's long-lived
    // diff-tree (test/runs/git-processes.test.ts counts 4 for it: these and the sandbox's reader).
    expect(await runOf(2, merges)).toBeGreaterThanOrEqual(merges.length * 3);
    expect(gitThreadStats().threads).toBe(0);
  });
});
