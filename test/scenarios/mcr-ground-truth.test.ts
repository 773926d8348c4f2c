import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MergeSample } from "../../src/dataset/sample.js";
import { Repo } from "../../src/git/repo.js";
import { mine } from "../../src/mining/mine.js";
import { MCR } from "../../src/scenarios/mcr/index.js";
import type { McrScenario } from "../../src/scenarios/mcr/scenario.js";
import type { McrFinalState } from "../../src/scenarios/mcr/state.js";
import type { Strategy } from "../../src/scenarios/definition.js";
import { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { runStrategy } from "./hostile-fixture.js";

let fx: Fixture;
let sample: MergeSample;
let source: Repo;
let root: ReturnType<typeof useSandboxRoot>;

const app = (l3: string) => Fixture.lines("a", 12).replace("a3\n", `${l3}\n`);

/**
 * One merge whose conflict in app.py was resolved with the topic's side, and which also, without any
 * conflict, edited util.py and made tool.py executable: what no region replacement reproduces.
 */
beforeAll(async () => {
  root = useSandboxRoot();
  fx = new Fixture();
  fx.git("remote", "add", "origin", "https://github.com/acme/tools.git");
  fx.commit("Initial", { "app.py": Fixture.lines("a", 12), "util.py": Fixture.lines("u", 12), "tool.py": "print('tool')\n" });
  fx.checkout("topic", true);
  fx.commit("Topic", { "app.py": app("a3 = 'topic'") });
  fx.checkout("main");
  fx.commit("Main", { "app.py": app("a3 = 'main'") });
  expect(fx.tryGit("merge", "--no-ff", "-q", "-m", "Merge topic", "topic").code).not.toBe(0);
  fx.write({ "app.py": app("a3 = 'topic'"), "util.py": Fixture.lines("u", 12).replace("u8\n", "u8 = 'edited in the merge'\n") });
  fx.git("add", "-A");
  fx.git("update-index", "--chmod=+x", "tool.py");
  fx.git("commit", "-q", "--no-edit", "-m", "Merge topic");
  fx.git("branch", "-D", "topic");
  const mined = await mine({ repoPath: fx.dir, name: "acme/tools", type: "merge" });
  expect(mined.samples).toHaveLength(1);
  sample = mined.samples[0] as MergeSample;
  source = await Repo.open(fx.dir);
});
afterAll(() => {
  fx.remove();
  root.cleanup();
});

/** The file headers of a diff, in order. */
const headers = (diff: string) => diff.match(/^diff --git .*$/gm) ?? [];

describe("MCR's ground truth", () => {
  it("a committed merge: the recorded merge's whole tree against the agent's, so edits and modes outside the conflicted files show", async () => {
    const s = (await MCR.setup(sample, source, {})) as McrScenario;
    try {
      const theirs = MCR.baselines.find((b) => b.name === "theirs") as Strategy;
      await runStrategy(s, theirs);
      const final = (await s.finalState()) as McrFinalState;
      expect(final.done).toBe(true);
      // The conflicted file is the recorded one; the rest of the tree is not.
      expect(final.files.map((f) => f.path)).toEqual(["app.py"]);
      const truth = await MCR.groundTruth(s, final, source);
      expect(headers(truth)).toEqual(["diff --git a/tool.py b/tool.py", "diff --git a/util.py b/util.py"]);
      expect(truth).toContain("diff --git a/tool.py b/tool.py\nold mode 100755\nnew mode 100644\n");
      expect(truth).toContain("-u8 = 'edited in the merge'\n+u8\n");
    } finally {
      s.close();
    }
  });

  it("an unfinished merge: what committing it would give, the conflict markers left in the conflicted file included", async () => {
    const s = (await MCR.setup(sample, source, {})) as McrScenario;
    try {
      const final = (await s.finalState()) as McrFinalState;
      expect([final.done, final.tree]).toEqual([false, null]);
      const truth = await MCR.groundTruth(s, final, source);
      expect(headers(truth)).toEqual(["diff --git a/app.py b/app.py", "diff --git a/tool.py b/tool.py", "diff --git a/util.py b/util.py"]);
      expect(truth).toContain(" a2\n+<<<<<<< HEAD\n+a3 = 'main'\n+=======\n a3 = 'topic'\n+>>>>>>> ");
      expect(truth).toContain("-u8 = 'edited in the merge'\n+u8\n");
    } finally {
      s.close();
    }
  });
});
