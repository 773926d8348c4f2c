import { Command } from "commander";
import {
  branchMemory,
  commitMemory,
  diffMemory,
  initMemory,
  logMemory,
  memoryContext,
  mergeMemory,
  MemoryWorkspace,
  restoreMemory,
  DEFAULT_CONTEXT_LIMIT,
  DEFAULT_MEMORY_DIR,
} from "../memory/index.js";
import { escapeControls } from "../util/escape.js";
import { intOption, repeatable } from "../util/options.js";
import type { CliIO } from "./io.js";

interface Common {
  workspace: string;
  dir: string;
  maxChars: number;
  json: boolean;
}

function common(cmd: Command): Common {
  return cmd.optsWithGlobals<Common>();
}

function open(c: Common): Promise<MemoryWorkspace> {
  return MemoryWorkspace.open(c.workspace, { memoryDir: c.dir, contextLimit: c.maxChars });
}

function print(io: CliIO, c: Common, data: unknown, text: string): void {
  const shown = escapeControls(text);
  io.stdout.write(c.json ? `${JSON.stringify(data)}\n` : shown.endsWith("\n") ? shown : `${shown}\n`);
}

const short = (oid: string) => oid.slice(0, 12);

export function memoryCommand(io: CliIO): Command {
  const memory = new Command("memory")
    .description("versioned agent memory kept in the workspace and committed with git (COMMIT / BRANCH / MERGE / CONTEXT / LOG)")
    .option("-C, --workspace <path>", "the git work tree holding the memory", ".")
    .option("--dir <name>", "memory folder inside the workspace", process.env.GITGOOD_MEMORY_DIR ?? DEFAULT_MEMORY_DIR)
    .option("--max-chars <n>", "largest CONTEXT answer, in characters", intOption("--max-chars"), DEFAULT_CONTEXT_LIMIT)
    .option("--json", "print results as JSON", false);

  memory
    .command("init")
    .description("create the memory folder for the checked-out branch and commit it")
    .requiredOption("--goal <text>", "what the work is meant to achieve")
    .option("--purpose <text>", "purpose of the first memory branch")
    .action(async (flags: { goal: string; purpose?: string }, cmd: Command) => {
      const c = common(cmd);
      const r = await initMemory(await open(c), { goal: flags.goal, purpose: flags.purpose });
      print(io, c, r, `memory started in ${r.memoryDir} on branch ${r.branch} (commit ${short(r.commit)})`);
    });

  memory
    .command("commit")
    .description("record a step: append a commit entry and commit code and memory together")
    .argument("<contribution>", "what this step achieved")
    .option("--summary <text>", "new running summary (default: previous summary plus the contribution)")
    .option("--milestone <text>", "milestone reached, added to main.md (repeatable)", repeatable)
    .option("--todo <text>", "to-do item, added to main.md (repeatable)", repeatable)
    .action(async (contribution: string, flags: { summary?: string; milestone?: string[]; todo?: string[] }, cmd: Command) => {
      const c = common(cmd);
      const r = await commitMemory(await open(c), {
        contribution,
        summary: flags.summary,
        milestones: flags.milestone,
        todos: flags.todo,
      });
      print(io, c, r, `committed entry #${r.entry} on ${r.branch} as ${short(r.commit)}`);
    });

  memory
    .command("branch")
    .description("create a memory branch and a matching git branch, and switch to it")
    .argument("<name>", "branch name")
    .requiredOption("--purpose <text>", "what the branch is for")
    .action(async (name: string, flags: { purpose: string }, cmd: Command) => {
      const c = common(cmd);
      const r = await branchMemory(await open(c), { name, purpose: flags.purpose });
      const saved = r.saved ? `; pending memory of ${r.from} saved as ${short(r.saved)}` : "";
      print(io, c, r, `switched to new branch ${r.branch} from ${r.from} (commit ${short(r.commit)})${saved}`);
    });

  memory
    .command("merge")
    .description("show another branch's CONTEXT, then merge it (code and memory) with a merge commit")
    .argument("<branch>", "branch to merge into the checked-out one")
    .requiredOption("--outcome <text>", "what the merged branch achieved")
    .option("--summary <text>", "new running summary of the checked-out branch")
    .action(async (branch: string, flags: { outcome: string; summary?: string }, cmd: Command) => {
      const c = common(cmd);
      const r = await mergeMemory(await open(c), { branch, outcome: flags.outcome, summary: flags.summary });
      const kept = r.memoryConflicts.length > 0 ? `; both sides kept in ${r.memoryConflicts.join(", ")}` : "";
      print(io, c, r, `${r.context}\nmerged ${r.branch} into ${r.into} as ${short(r.commit)} (entry #${r.entry})${kept}`);
    });

  memory
    .command("context")
    .description("show the memory: overview, a branch, one entry, the trace or a metadata segment")
    .option("--branch <name>", "show this branch (purpose, running summary, recent entries)")
    .option("--commit <id>", "show one whole entry: its number on the branch or a memory commit id")
    .option("--log", "show the end of the trace (log.md)", false)
    .option("--metadata <segment>", "show one segment of metadata.yaml")
    .option("--count <n>", "entries (default 10) or trace lines (default 20) per window", intOption("--count"))
    .option("--skip <n>", "skip this many of the newest entries or lines (scroll back)", intOption("--skip"))
    .option("--offset <n>", "character offset into the answer (read past --max-chars)", intOption("--offset"))
    .action(
      async (
        flags: { branch?: string; commit?: string; log: boolean; metadata?: string; count?: number; skip?: number; offset?: number },
        cmd: Command,
      ) => {
        const c = common(cmd);
        const text = await memoryContext(await open(c), flags);
        print(io, c, { context: text }, text);
      },
    );

  memory
    .command("log")
    .description("append a timestamped observation / thought / action record to the trace")
    .argument("[note]", "free text, when the record is not split into parts")
    .option("-o, --observation <text>", "what was observed")
    .option("-t, --thought <text>", "what it means")
    .option("-a, --action <text>", "what is done next")
    .action(async (note: string | undefined, flags: { observation?: string; thought?: string; action?: string }, cmd: Command) => {
      const c = common(cmd);
      const r = await logMemory(await open(c), { ...flags, note });
      print(io, c, r, `logged on ${r.branch} at ${r.timestamp}`);
    });

  memory
    .command("diff")
    .description("show how the memory folder changed between two memory states (commits), or from one to now")
    .argument("<from>", "older memory state")
    .argument("[to]", "newer memory state (default: the work tree)")
    .option("--stat", "only a summary of changed files", false)
    .action(async (from: string, to: string | undefined, flags: { stat: boolean }, cmd: Command) => {
      const c = common(cmd);
      const d = await diffMemory(await open(c), { from, to, stat: flags.stat });
      print(io, c, { diff: d }, d);
    });

  memory
    .command("restore")
    .description("put the memory folder back as it was at a memory state, as a new commit (pending memory is saved first)")
    .argument("<id>", "memory state (commit) to restore")
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const c = common(cmd);
      const r = await restoreMemory(await open(c), id);
      const saved = r.saved ? `; pending memory saved first as ${short(r.saved)}` : "";
      print(io, c, r, `memory of ${r.branch} restored to ${short(r.from)} in commit ${short(r.commit)}${saved}`);
    });

  return memory;
}
