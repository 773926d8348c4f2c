import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import { AgentSession } from "../../src/runs/session.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { McrFinalState } from "../../src/scenarios/mcr/state.js";
import { Fixture } from "../helpers/fixture.js";
import { mergeSample, useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let fx: Fixture;
let merge: string;

// A merge whose conflict and commit messages carry terminal escape sequences and a NUL-free bell.
beforeAll(() => {
  root = useSandboxRoot();
  fx = new Fixture();
  const file = (line: string): string => `first\n${line}\nlast\n`;
  fx.commit("base", { "evil.py": file("x = 0") });
  fx.checkout("topic", true);
  fx.commit("topic \x1b]0;owned\x07", { "evil.py": file("x = '\x1b[2J topic'") });
  fx.checkout("main");
  fx.commit("main", { "evil.py": file("x = 'main'") });
  merge = fx.merge("topic", { "evil.py": file("x = '\x1b[2J topic'") });
});
afterAll(() => {
  fx.remove();
  root.cleanup();
});

describe("the initial context an agent's session gives it", () => {
  it("shows repository control characters escaped, keeps the exact bytes in its data, and stays solvable", async () => {
    const scenario = await setupScenario(mergeSample(fx, merge, ["evil.py"]), fx.dir);
    try {
      const context = new AgentSession(scenario, await scenario.initialContext(), 5, new AbortController().signal).context;
      expect(context.text).toContain("x = '\\x1b[2J topic'");
      expect(context.text).toContain(String.raw`"topic \u001b]0;owned\u0007"`);
      expect([...context.text].filter((ch) => ch < " " && ch !== "\n" && ch !== "\t")).toEqual([]);
      const conflicts = context.data.conflicts as { text: string }[];
      expect(conflicts[0]?.text).toContain("x = '\x1b[2J topic'");
      const session = new AgentSession(scenario, await scenario.initialContext(), 5, new AbortController().signal);
      await createAgent("theirs").run(session);
      const final = (await scenario.finalState()) as McrFinalState;
      expect(final.tree).toBe(fx.git("rev-parse", `${merge}^{tree}`).trim());
    } finally {
      scenario.close();
    }
  });
});
