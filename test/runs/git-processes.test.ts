import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import type { Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import type { Fixture } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

/**
 * Git processes one attempt starts, set-up, tools, final state, scoring and clean-up included (issue 23's
 * "git processes per attempt" goal: at most 15 for MCR, IR and ICC with any built-in agent). Each bound is
 * the count measured when it was set; a change that adds processes fails here and must say why. What is
 * left: the source's probe, config read and reader, the merge-base and history walk the store needs, one
 * pack-objects per pack, git's own work (checkout, merge and the `stash create` it starts, rebase and its
 * `notes copy`, commit), the sandbox's reader, and one diff per set of patches shown or recorded.
 */
const LIMIT: Record<string, number> = { MCR: 14, IR: 13, ICC: 14 };

const AGENTS: Record<string, readonly string[]> = {
  MCR: ["oracle", "baseline", "union", "ours", "theirs"],
  IR: ["oracle", "baseline", "squash-fixups", "keep"],
  ICC: ["oracle", "baseline", "per-file", "one-commit"],
};

let fx: Fixture;
let samples: Sample[];
let dirs: ReturnType<typeof tempDirs>;
let n = 0;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  dirs = tempDirs();
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

async function attempt(sample: Sample, scenario: string, agentName: string): Promise<{ processes: number; commands: string[] }> {
  const agent = createAgent(agentName);
  const store = RunStore.open(`${dirs.out}-${n++}`, runConfig({ samples: ["test"], agent: agent.name }, (p) => p));
  const { result, processes, commands } = await countGitProcesses(() =>
    runBenchmark({ samples: [sample], scenarios: [scenario], where: { repo: fx.dir }, agent, store, jobs: 1, timeoutSeconds: 60, maxTurns: 10, judges: [] }),
  );
  expect(result.records).toHaveLength(1);
  expect(result.records[0]?.status).toBe("success");
  return { processes, commands };
}

describe("git processes per attempt", () => {
  for (const scenario of ["MCR", "IR", "ICC"]) {
    for (const agentName of AGENTS[scenario] ?? []) {
      it(`${scenario} with ${agentName} starts at most ${LIMIT[scenario]} git processes`, async () => {
        const wanted = samples.filter((s) => (scenario === "MCR" ? s.sample_type === "merge" : s.sample_type === "file_commit_chain"));
        for (const sample of wanted) {
          const { processes, commands } = await attempt(sample, scenario, agentName);
          if (process.env.GITGOOD_SHOW_GIT) console.log(`${scenario} ${agentName} ${sample.id}: ${processes}\n  ${commands.join("\n  ")}`);
          expect(processes, commands.join("\n")).toBeLessThanOrEqual(LIMIT[scenario] ?? 0);
        }
      });
    }
  }
});
