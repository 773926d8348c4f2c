import type { OutcomeBlock, OutcomeInput } from "../definition.js";
import { arr, facts, num, obj, seconds, str, type Json } from "../outcome-kit.js";

/**
 * The COMMIT0 family's view of an attempt's outcome: the suite's count, the failing tests per test file,
 * per implemented file the attempts and the best count they reached, and each attempt with what became
 * of it (kept as the best, rolled back, kept as the last), from the loop agent's history.
 */
export function commit0Outcome({ record, trajectory }: OutcomeInput): OutcomeBlock[] {
  const out: OutcomeBlock[] = [];
  const v = obj(record.scores.commit0);
  if (v) {
    const tests = obj(v.tests);
    out.push(
      { kind: "heading", text: "Evaluation" },
      facts([
        ["tests passing", num(v.passed) !== null ? `${String(v.passed)} of ${String(v.total)}` : undefined],
        ["pass rate", num(v.pass_rate) !== null ? `${((num(v.pass_rate) as number) * 100).toFixed(1)} %` : undefined],
        ["change applied", typeof v.applied === "boolean" ? v.applied : undefined],
        ["stubs left", num(v.stubs_left)],
        ["suite's run time", num(v.runtime_s) !== null ? seconds(v.runtime_s) : undefined],
        ["tests' exit code", tests ? (tests.timed_out === true ? "timed out" : String(tests.exit_code ?? "–")) : undefined],
      ]),
    );
    const error = obj(v.error);
    if (error) out.push({ kind: "text", tone: "bad", text: `${str(error.code) ?? "error"}: ${str(error.message) ?? ""}` });
    const dropped = [...arr(v.tampered), ...arr(v.tampering)].map(String);
    if (dropped.length > 0) out.push({ kind: "text", tone: "bad", text: `Changes the evaluation dropped: ${dropped.join(", ")}` });
    const failing = new Map<string, number>();
    for (const t of arr(v.failed).map(String)) {
      const file = t.split("::")[0] ?? t;
      failing.set(file, (failing.get(file) ?? 0) + 1);
    }
    if (failing.size > 0) {
      out.push({ kind: "heading", text: "Failing tests per test file" }, { kind: "table", head: ["test file", "failing"], rows: [...failing].sort().map(([f, n]) => [f, String(n)]) });
    }
    const tail = tests ? str(tests.log_tail) : null;
    if (tail) out.push({ kind: "code", title: "the test log's tail", text: tail });
  }
  const history = arr(obj(trajectory?.final)?.history).flatMap((h) => (obj(h) ? [obj(h) as Json] : []));
  if (history.length > 0) {
    const perFile = new Map<string, { attempts: number; best: number | null; rolledBack: number }>();
    for (const h of history) {
      const file = str(h.file) ?? "?";
      const f = perFile.get(file) ?? { attempts: 0, best: null, rolledBack: 0 };
      f.attempts++;
      const passed = num(h.passed);
      if (passed !== null) f.best = Math.max(f.best ?? 0, passed);
      if (h.outcome === "rolled_back") f.rolledBack++;
      perFile.set(file, f);
    }
    out.push(
      { kind: "heading", text: "Per file: attempts and the most tests passing" },
      { kind: "table", head: ["file", "attempts", "most passing", "rolled back"], rows: [...perFile].map(([f, x]) => [f, String(x.attempts), x.best === null ? "not run" : String(x.best), String(x.rolledBack)]) },
      { kind: "heading", text: "Attempts in order" },
      {
        kind: "table",
        head: ["file", "attempt", "commit", "passing", "what became of it"],
        rows: history.map((h) => [str(h.file) ?? "?", String(h.attempt ?? "?"), (str(h.commit) ?? "").slice(0, 12), h.passed === null ? "not run" : String(h.passed), String(h.outcome ?? "?").replace("_", " ")]),
        tones: history.map((h) => [null, null, null, null, h.outcome === "rolled_back" ? "bad" : h.outcome === "best" ? "good" : null]),
      },
    );
  }
  if (out.length === 0) out.push({ kind: "text", tone: "muted", text: "No COMMIT0 evaluation was recorded for this attempt." });
  return out;
}
