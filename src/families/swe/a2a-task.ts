import { lstatSync, mkdtempSync, readdirSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitGoodError } from "../../errors.js";
import { splitPatch } from "../../testenv/test-infra.js";
import { worktreePatch, worktreeSnapshot } from "../../git/apply.js";
import type { ToolSpec } from "../../model/types.js";
import type { Isolation } from "../../sandbox/isolation.js";
import { directoryWorkspace, type Workspace } from "../../sandbox/workspace.js";
import { SWE_TOOLS, type SweWork } from "../../scenarios/swe/tools.js";
import { removeAtExit } from "../../util/cleanup.js";
import { at } from "../../util/at.js";
import { DEFAULT_COMMAND_TIMEOUT } from "../../swe/options.js";
import { SWE } from "../../scenarios/swe/index.js";
import type { ParticipantTask } from "../definition.js";

/** A SWE task as the AgentBeats convention sends it (src/agents/a2a.ts `patchTaskMessage` writes it). */
interface SweMessage {
  repoDir: string;
  problem: string;
  hints: string | null;
}

const SHAPE = "a SWE task is REPO_DIR:<absolute path>, a blank line, Problem Statement: and the issue on the lines below (then optionally a blank line, Hints: and the hints)";
const HINTS = "\n\nHints:\n";

/** Whether a message is meant as a SWE task (it starts with REPO_DIR:); `parseSweMessage` says whether it is a good one. */
function isSweMessage(text: string): boolean {
  return text.startsWith("REPO_DIR:");
}

/** Reads a SWE task message strictly: the directory must be absolute, and the issue must not be empty. */
function parseSweMessage(text: string): SweMessage {
  const m = /^REPO_DIR:[ \t]*([^\n]*?)[ \t]*\n\nProblem Statement:\n([\s\S]*)$/.exec(text);
  if (!m) throw new GitGoodError("BAD_SWE_TASK", `malformed SWE task: ${SHAPE}`);
  const repoDir = at(m, 1);
  if (!path.isAbsolute(repoDir)) throw new GitGoodError("BAD_SWE_TASK", `malformed SWE task: REPO_DIR must be an absolute path, not '${repoDir}'`, { repo_dir: repoDir });
  const body = at(m, 2);
  const cut = body.lastIndexOf(HINTS);
  const problem = cut === -1 ? body : body.slice(0, cut);
  const hints = cut === -1 ? null : body.slice(cut + HINTS.length);
  if (problem.trim() === "") throw new GitGoodError("BAD_SWE_TASK", "malformed SWE task: the problem statement is empty");
  return { repoDir, problem, hints: hints !== null && hints.trim() !== "" ? hints : null };
}

/** REPO_DIR checked: a directory itself, not a symbolic link to one; returned with its real path. */
function checkedRepoDir(dir: string): string {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    throw new GitGoodError("BAD_SWE_TASK", `REPO_DIR ${dir} does not exist on this machine (the green and this agent must share it)`, { repo_dir: dir });
  }
  if (st.isSymbolicLink()) throw new GitGoodError("BAD_SWE_TASK", `REPO_DIR ${dir} is a symbolic link, which this agent never follows`, { repo_dir: dir });
  if (!st.isDirectory()) throw new GitGoodError("BAD_SWE_TASK", `REPO_DIR ${dir} is not a directory`, { repo_dir: dir });
  return realpathSync(dir);
}

/** The task as the model reads it: what to do, the issue, and the hints when given. */
function sweTaskText(msg: SweMessage): string {
  const text = [
    "SWE task: the repository is the project root of your tools (list_files shows it).",
    "Fix the issue below by changing the repository's files; your work tree's changes are your answer.",
    "",
    "Issue:",
    msg.problem.trimEnd(),
  ];
  if (msg.hints !== null) text.push("", "Hints (from the issue's discussion):", msg.hints.trimEnd());
  return text.join("\n");
}

interface SweTaskOptions {
  /** How `run_command` isolates its programs (REPO_DIR their only writable directory). */
  isolation: Isolation;
  commandTimeoutSeconds: number;
  /** The real path of the directory REPO_DIR must lie in (`a2a agent --shared-dir`); absent: anywhere. */
  sharedDir?: string;
  /** Most bytes of files REPO_DIR may hold: the task's snapshot copies them (default DEFAULT_MAX_REPO_BYTES). */
  maxRepoBytes?: number;
}

/** A file Python writes when it imports a module: a `__pycache__` directory's, or a `.pyc`/`.pyo` file. */
function isByteCodeCache(file: string): boolean {
  return file.split("/").includes("__pycache__") || /\.py[co]$/.test(file);
}

/** REPO_DIR's files may add up to this much by default (the snapshot copies them). */
const DEFAULT_MAX_REPO_BYTES = 1024 * 1024 * 1024;

/** Refuses REPO_DIR when it does not lie in `sharedDir` (links resolved). */
function checkShared(root: string, given: string, sharedDir: string | undefined): void {
  if (sharedDir === undefined) return;
  if (root !== sharedDir && !root.startsWith(sharedDir.endsWith(path.sep) ? sharedDir : sharedDir + path.sep)) {
    throw new GitGoodError("BAD_SWE_TASK", `REPO_DIR ${given} is not under this agent's shared directory ${sharedDir}`, { repo_dir: given });
  }
}

/** Refuses REPO_DIR when its files (links not followed) add up to more than `limit` bytes, before anything is copied. */
function checkSize(root: string, given: string, limit: number): void {
  let total = 0;
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile()) total += lstatSync(p).size;
      if (total > limit) {
        throw new GitGoodError("BAD_SWE_TASK", `REPO_DIR ${given} holds more than ${Math.round(limit / 1048576)} MB of files, above this agent's limit (--max-repo-mb)`, { repo_dir: given });
      }
    }
  };
  walk(root);
}

/**
 * A SWE task worked in REPO_DIR with the SWE scenario's tools. REPO_DIR is someone else's directory: the
 * tools never follow a link nor write outside it, commands run isolated with it as their only writable
 * directory, and its state when the task starts is recorded in a git directory of gitgood's own (a git
 * work tree or a plain copy alike; its `.git` is never read), so the answer is exactly what changed since.
 */
class SweTask implements SweWork {
  readonly workspace: Workspace;
  readonly commandTimeoutSeconds: number;
  readonly tools: ToolSpec[] = SWE_TOOLS.functionTools();
  readonly finishTool = "finish";
  private finished = false;
  private answer: string | null = null;

  private constructor(
    root: string,
    opts: SweTaskOptions,
    private readonly scratch: string,
    private readonly base: string,
    readonly close: () => void,
  ) {
    this.workspace = directoryWorkspace(root, opts.isolation);
    this.commandTimeoutSeconds = opts.commandTimeoutSeconds;
  }

  /** Checks REPO_DIR and records its state as handed over. */
  static async open(msg: SweMessage, opts: SweTaskOptions): Promise<SweTask> {
    const root = checkedRepoDir(msg.repoDir);
    checkShared(root, msg.repoDir, opts.sharedDir);
    checkSize(root, msg.repoDir, opts.maxRepoBytes ?? DEFAULT_MAX_REPO_BYTES);
    const scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-a2a-swe-"));
    const close = removeAtExit(scratch);
    try {
      const base = await worktreeSnapshot(root, path.join(scratch, "base.git"));
      return new SweTask(root, opts, scratch, base, close);
    } catch (err) {
      close();
      throw err;
    }
  }

  isDone(): boolean {
    return this.finished;
  }

  finish(answer: string | null): void {
    this.finished = true;
    this.answer = answer;
  }

  submitted(): boolean {
    return this.finished;
  }

  async call(name: string, args: Record<string, unknown>): Promise<string> {
    return (await SWE_TOOLS.call(this, name, args)).output;
  }

  /**
   * The answer: REPO_DIR's diff against its state at the start (new and binary files included, Python's
   * byte-code caches left out: running the code writes them, and the evaluation drops them anyway) as
   * `<patch>…</patch>`; when nothing changed, the model's `finish` answer (which may hold a diff) if it gave one.
   */
  async patchAnswer(): Promise<string> {
    const diff = await worktreePatch(this.workspace.workDir, path.join(this.scratch, "base.git", "objects"), this.base, path.join(this.scratch, "diff.git"), null);
    const raw = splitPatch(diff, (file) => !isByteCodeCache(file)).kept;
    if (raw === "" && this.answer !== null && this.answer.trim() !== "") return this.answer;
    return `<patch>\n${Buffer.from(raw, "latin1").toString("utf8")}</patch>`;
  }
}

/** The SWE family's participant task: worked in REPO_DIR with the SWE tools, answered with its patch. */
export const SWE_PARTICIPANT_TASK: ParticipantTask = {
  shape: "a SWE task (REPO_DIR:<path>, then Problem Statement:)",
  skill: { id: "swe-task", name: "SWE task", description: "Fixes an issue in the repository at REPO_DIR and answers with the patch.", tags: ["swe", "patch"] },
  matches: isSweMessage,
  async open(text, opts) {
    const msg = parseSweMessage(text);
    const task = await SweTask.open(msg, {
      isolation: opts.isolation,
      commandTimeoutSeconds: opts.commandTimeoutSeconds ?? DEFAULT_COMMAND_TIMEOUT,
      ...(opts.sharedDir !== undefined ? { sharedDir: opts.sharedDir } : {}),
      ...(opts.maxRepoBytes !== undefined ? { maxRepoBytes: opts.maxRepoBytes } : {}),
    });
    return {
      tools: task.tools,
      finishTool: task.finishTool,
      call: (name, args) => task.call(name, args),
      submitted: () => task.submitted(),
      where: task.workspace.workDir,
      text: sweTaskText(msg),
      prompt: SWE.prompt,
      answer: () => task.patchAnswer(),
      close: () => task.close(),
    };
  },
};
