import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import { AgentSession } from "../../src/runs/session.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { HistoryFinalState } from "../../src/scenarios/types.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildSpacedChainFixture, useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let fx: Fixture;
let chain: ReturnType<typeof buildSpacedChainFixture>;

beforeAll(() => {
  root = useSandboxRoot();
  chain = buildSpacedChainFixture();
  fx = chain.fx;
});
afterAll(() => {
  fx.remove();
  root.cleanup();
});

/** Runs a named baseline on the chain's ICC scenario with every file's hunks offered; returns its commits. */
async function iccWith(agentName: string): Promise<HistoryFinalState> {
  const scenario = await setupScenario(chain.sample, fx.dir, { scenario: "icc", settings: { scope: "all" } });
  try {
    const session = new AgentSession(scenario, await scenario.initialContext(), 10, new AbortController().signal);
    await createAgent(agentName).run(session);
    return (await scenario.finalState()) as HistoryFinalState;
  } finally {
    scenario.close();
  }
}

describe("ICC baselines on a chain that changes several files", () => {
  it("per-file makes one commit per changed file; one-commit makes one; both reach the tip's tree", async () => {
    const tip = chain.commits.at(-1) as string;
    const changed = fx.git("diff", "--name-only", "--no-renames", chain.base, tip).trim().split("\n");
    expect(changed.length).toBeGreaterThan(3);
    const tipTree = fx.git("rev-parse", `${tip}^{tree}`).trim();

    const perFile = await iccWith("per-file");
    expect(perFile.done).toBe(true);
    expect(perFile.tree).toBe(tipTree);
    expect(perFile.commits).toHaveLength(changed.length);
    const touched = perFile.commits.map((c) => [...c.diff.matchAll(/^diff --git a\/(.+?) b\//gm)].map((m) => m[1]));
    expect(touched.every((files) => files.length === 1)).toBe(true);
    expect(touched.flat().sort()).toEqual([...changed].sort());

    const one = await iccWith("one-commit");
    expect(one.tree).toBe(tipTree);
    expect(one.commits).toHaveLength(1);
  });
});
