import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Sample } from "../../src/dataset/sample.js";
import { createAgent } from "../../src/agents/index.js";
import { mine } from "../../src/mining/mine.js";
import { planJobs } from "../../src/runs/plan.js";
import { RunStore } from "../../src/runs/store.js";
import { parseTicket, ticketBase, ticketFor, type JobTicket, type TicketBase } from "../../src/runs/ticket.js";
import { Fixture } from "./fixture.js";

/**
 * A small project with every kind of sample: an easy merge whose recorded resolution took the merged
 * branch's side, a medium CRLF merge resolved by hand, and a chain of four commits to `calc.py` whose third
 * commit is a typo fix-up.
 */
export async function buildRunFixture(): Promise<{ fx: Fixture; samples: Sample[] }> {
  const fx = new Fixture();
  fx.git("remote", "add", "origin", "https://github.com/acme/calc.git");
  const calc = (body: string[]) => `${body.join("\n")}\n`;
  fx.commit("Initial calculator", {
    "calc.py": calc(["def add(a, b):", "    return a + b", "", Fixture.lines("# pad ", 8).trimEnd()]),
    "io.py": Fixture.lines("io", 20),
    "win.py": Fixture.lines("w", 20, "\r\n"),
  });
  fx.commit("Add README", { "README.md": "calc\n" });
  fx.commit("Add sub()", {
    "calc.py": calc(["def add(a, b):", "    return a + b", "", "def sub(a, b):", "    return a - b", "", Fixture.lines("# pad ", 8).trimEnd()]),
  });
  fx.commit("Add mul()", {
    "calc.py": calc(["def add(a, b):", "    return a + b", "", "def sub(a, b):", "    return a - b", "", "def mul(a, b):", "    retrun a * b", "", Fixture.lines("# pad ", 8).trimEnd()]),
  });
  fx.commit("Fix typo", {
    "calc.py": calc(["def add(a, b):", "    return a + b", "", "def sub(a, b):", "    return a - b", "", "def mul(a, b):", "    return a * b", "", Fixture.lines("# pad ", 8).trimEnd()]),
  });
  fx.commit("Add div()", {
    "calc.py": calc(["def add(a, b):", "    return a + b", "", "def sub(a, b):", "    return a - b", "", "def mul(a, b):", "    return a * b", "", "def div(a, b):", "    return a / b", "", Fixture.lines("# pad ", 8).trimEnd()]),
  });
  fx.commit("Docs", { "README.md": "calc, with four operations\n" });
  // Easy merge: both sides change io.py line 3; the recorded merge keeps the branch's line.
  const io = (l3: string) => Fixture.lines("io", 20).replace("io3\n", `${l3}\n`);
  fx.checkout("topic", true);
  fx.commit("Topic: better io", { "io.py": io("io3 = 'topic'") });
  fx.checkout("main");
  fx.commit("Main: io tweak", { "io.py": io("io3 = 'main'") });
  fx.merge("topic", { "io.py": io("io3 = 'topic'") });
  // Medium merge: two conflicts in a CRLF file, resolved by hand.
  const win = (a: string, b: string) => Fixture.lines("w", 20, "\r\n").replace("w2\r\n", `${a}\r\n`).replace("w12\r\n", `${b}\r\n`);
  fx.checkout("crlf", true);
  fx.commit("Branch edits win.py", { "win.py": win("B2", "B12") });
  fx.checkout("main");
  fx.commit("Main edits win.py", { "win.py": win("M2", "M12") });
  fx.merge("crlf", { "win.py": win("M2+B2", "B12") });
  fx.git("branch", "-D", "topic", "crlf");
  const { samples } = await mine({ repoPath: fx.dir, name: "acme/calc" });
  return { fx, samples };
}

/** A run directory and sandbox root that are removed afterwards. */
export function tempDirs(): { out: string; cleanup: () => void } {
  const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-runs-"));
  const previous = process.env.GITGOOD_SANDBOX_ROOT;
  process.env.GITGOOD_SANDBOX_ROOT = path.join(root, "sandboxes");
  return {
    out: path.join(root, "run"),
    cleanup: () => {
      if (previous === undefined) delete process.env.GITGOOD_SANDBOX_ROOT;
      else process.env.GITGOOD_SANDBOX_ROOT = previous;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The queue ticket base of the run in `dir` for a built-in agent (no model, no prices), as a producer makes it. */
export function builtInTicketBase(dir: string, agent = "oracle"): TicketBase {
  return ticketBase(RunStore.readConfig(dir), {
    agent: { name: agent, model: null, options: {} },
    modelPrices: {},
    agentModel: null,
  });
}

/** The ticket of the oracle's first job on `sample` in the run in `dir`, as a worker parses it (through JSON, as Redis carries it). */
export function oracleTicket(dir: string, sample: Sample): JobTicket {
  const [job] = planJobs([sample], createAgent("oracle")).jobs;
  if (!job) throw new Error("no job planned");
  return parseTicket(JSON.parse(JSON.stringify(ticketFor(builtInTicketBase(dir), job))));
}
