import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { agentUsesModel } from "../agents/index.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { listOption } from "../util/options.js";

/** One combination of a matrix: an agent, and the model it asks when it asks one. */
export interface MatrixCell {
  agent: string;
  /** Undefined for an agent that asks no model (`baseline`, `command`): it runs once, whatever the models. */
  model?: string;
  /** The cell's run directory's name under the matrix's `--out`: `AGENT` or `AGENT--MODEL`, made safe. */
  name: string;
  /** How reports and progress lines name it: `AGENT` or `AGENT × MODEL`. */
  label: string;
}

/** What became of a cell: its run finished (whatever its attempts' verdicts), or it stopped with an error. */
export interface CellOutcome {
  cell: MatrixCell;
  /** The cell's run directory. */
  dir: string;
  status: "finished" | "failed";
  error?: { code: string; message: string };
}

/** The index of a matrix's directory: which cell ran where, and how it ended (rewritten after each cell). */
export const MATRIX_FILE = "matrix.json";

/** A name made safe as one path component: runs of other characters become `_`, at most 80 characters. */
function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_").slice(0, 80);
}

/**
 * The cells of `--agent A,B --model X,Y`: every agent with every model, in the order given; an agent that asks
 * no model is one cell. Repeated names count once. Cells whose safe names meet get `-2`, `-3`, … so every
 * cell has a directory of its own.
 */
export function matrixCells(agents: string, models: string | undefined): MatrixCell[] {
  const agentList = [...new Set(listOption(agents))];
  const modelList = models === undefined ? [] : [...new Set(listOption(models))];
  if (agentList.length === 0) throw new GitGoodError("BAD_OPTION", "--agent names no agent: give one, or several comma-separated");
  if (models !== undefined && modelList.length === 0) throw new GitGoodError("BAD_OPTION", "--model names no model: give one, or several comma-separated");
  const cells: Omit<MatrixCell, "name">[] = agentList.flatMap((agent) =>
    agentUsesModel(agent) && modelList.length > 0 ? modelList.map((model) => ({ agent, model, label: `${agent} × ${model}` })) : [{ agent, label: agent }],
  );
  const taken = new Set<string>();
  return cells.map((cell) => {
    const base = safeName(cell.model === undefined ? cell.agent : `${cell.agent}--${cell.model}`);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    taken.add(name);
    return { ...cell, name };
  });
}

export interface MatrixOptions {
  /** The matrix's directory: a run directory per cell in it, and MATRIX_FILE. */
  out: string;
  /** Runs one cell into its run directory (resuming what it finds there); a throw fails that cell only. */
  runCell: (cell: MatrixCell, dir: string) => Promise<void>;
  /** Progress lines: which cell starts, and how a cell that failed failed. */
  stderr: { write(text: string): unknown };
  /** Write MATRIX_FILE (not for a dry run, which writes nothing). Default true. */
  record?: boolean;
}

/**
 * Runs every cell, one after the other, each into `out/<cell name>`: a cell's run resumes like any run, so
 * running the matrix again finishes what an interrupted one left. A cell that throws is recorded as failed
 * with its error and the others go on. The cells share what the runs share on disk (the response cache,
 * built environments, clones).
 */
export async function runMatrix(cells: readonly MatrixCell[], opts: MatrixOptions): Promise<CellOutcome[]> {
  const outcomes: CellOutcome[] = [];
  for (const [i, cell] of cells.entries()) {
    const dir = path.join(opts.out, cell.name);
    opts.stderr.write(`matrix ${i + 1}/${cells.length}: ${cell.label} → ${dir}\n`);
    try {
      await opts.runCell(cell, dir);
      outcomes.push({ cell, dir, status: "finished" });
    } catch (err) {
      const e = toGitGoodError(err, "INTERNAL");
      opts.stderr.write(`matrix ${i + 1}/${cells.length}: ${cell.label} failed: ${e.code}: ${e.message}\n`);
      outcomes.push({ cell, dir, status: "failed", error: { code: e.code, message: e.message } });
    }
    if (opts.record !== false) writeMatrixIndex(opts.out, outcomes);
  }
  return outcomes;
}

/** Writes MATRIX_FILE whole (a temporary file renamed into place). */
function writeMatrixIndex(out: string, outcomes: readonly CellOutcome[]): void {
  mkdirSync(out, { recursive: true });
  const index = {
    cells: outcomes.map((o) => ({
      agent: o.cell.agent,
      model: o.cell.model ?? null,
      label: o.cell.label,
      dir: o.cell.name,
      status: o.status,
      ...(o.error ? { error: o.error } : {}),
    })),
  };
  const file = path.join(out, MATRIX_FILE);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(index, null, 2)}\n`, { mode: 0o644 });
  renameSync(tmp, file);
}
