import path from "node:path";
import { GitGoodError } from "../errors.js";
import type { RunFlags } from "../runs/flags.js";
import { runMatrix, type MatrixCell } from "../runs/matrix.js";
import type { ResultRecord } from "../runs/record.js";
import type { CliIO } from "./io.js";
import { checkOutcome } from "./outcome.js";
import { writeComparison, writeReport } from "./report.js";

/** The comparison page a matrix writes into its directory. */
const MATRIX_REPORT = "comparison.html";

/**
 * `gitgood run --agent A,B --model X,Y`: each cell runs as `gitgood run` would with that agent and model,
 * into `OUT/<cell>`; then the runs that finished are compared (text, or JSON with --json, on stdout, and
 * OUT/comparison.html). The exit status says whether a cell failed, then what the attempts of all cells say
 * (system errors, --fail-under).
 */
export async function runMatrixFromFlags(
  cells: readonly MatrixCell[],
  flags: RunFlags,
  out: string,
  io: CliIO,
  runCell: (flags: RunFlags) => Promise<readonly ResultRecord[]>,
): Promise<void> {
  const records: ResultRecord[] = [];
  const outcomes = await runMatrix(cells, {
    out,
    stderr: io.stderr,
    record: !flags.dryRun,
    runCell: async (cell, dir) => {
      records.push(...(await runCell({ ...flags, agent: cell.agent, model: cell.model, out: dir })));
    },
  });
  if (flags.dryRun) return;
  const finished = outcomes.filter((o) => o.status === "finished");
  const report = { json: flags.json, html: path.join(out, MATRIX_REPORT) };
  const [only] = finished;
  if (finished.length > 1) {
    writeComparison(
      finished.map((o) => o.dir),
      report,
      io,
      finished.map((o) => o.cell.label),
    );
  } else if (only) writeReport(only.dir, report, io, only.cell.label);
  const failed = outcomes.filter((o) => o.status === "failed");
  if (failed.length > 0) {
    const which = failed.map((o) => `${o.cell.label}: ${o.error?.code ?? "ERROR"}`).join("; ");
    throw new GitGoodError("RUN_ERRORS", `${failed.length} of ${outcomes.length} matrix run(s) failed (${which}); run the same command again to resume them`, {
      failed: failed.length,
      cells: outcomes.length,
    });
  }
  checkOutcome(records, flags);
}
