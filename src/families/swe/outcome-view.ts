import type { OutcomeBlock, OutcomeInput } from "../definition.js";
import { arr, facts, obj, seconds, str } from "../outcome-kit.js";

/**
 * The SWE family's view of an attempt's outcome: the evaluation's status and resolution, how the patch
 * was applied, the FAIL_TO_PASS and PASS_TO_PASS tests with pass or fail, what the agent changed that the
 * evaluation dropped, the evaluated patch, the test log's tail and the time of each phase.
 */
export function sweOutcome({ record }: OutcomeInput): OutcomeBlock[] {
  const v = obj(record.scores.swe);
  if (!v) return [{ kind: "text", tone: "muted", text: "No SWE evaluation was recorded for this attempt." }];
  const out: OutcomeBlock[] = [{ kind: "heading", text: "Evaluation" }];
  const tests = obj(v.tests);
  out.push(
    facts([
      ["status", str(v.status)],
      ["resolution", str(v.resolution)],
      ["patch applied", typeof v.patch_applied === "boolean" ? v.patch_applied : undefined],
      ["apply strategy", str(v.apply_strategy) ?? (v.patch_applied === false ? "none worked" : undefined)],
      ["patch taken from", str(v.patch_source)],
      ["test command", tests ? arr(tests.argv).map(String).join(" ") : undefined],
      ["tests' exit code", tests ? (tests.timed_out === true ? "timed out" : String(tests.exit_code ?? "–")) : undefined],
      ["reason", str(v.reason)],
      ["log", str(v.log_invalid)],
    ]),
  );
  const error = obj(v.error);
  if (error) out.push({ kind: "text", tone: "bad", text: `${str(error.code) ?? "error"}: ${str(error.message) ?? ""}` });
  const dropped = [...arr(v.tampered), ...arr(v.tampering)].map(String);
  if (dropped.length > 0) out.push({ kind: "text", tone: "bad", text: `Changes the evaluation dropped (test files and their configuration are the evaluation's): ${dropped.join(", ")}` });
  const status = obj(v.tests_status);
  const rows: string[][] = [];
  const tones: ("good" | "bad" | null)[][] = [];
  for (const list of ["FAIL_TO_PASS", "PASS_TO_PASS"]) {
    const l = obj(status?.[list]);
    for (const [outcome, good] of [
      ["success", true],
      ["failure", false],
    ] as const) {
      for (const t of arr(l?.[outcome])) {
        rows.push([String(t), list, good ? "pass" : "fail"]);
        tones.push([null, null, good ? "good" : "bad"]);
      }
    }
  }
  if (rows.length > 0) out.push({ kind: "heading", text: "Tests" }, { kind: "table", head: ["test", "list", "result"], rows, tones });
  const timings = obj(v.timings);
  if (timings) {
    const phases: [string, string][] = [
      ["setup_s", "sandbox set-up"],
      ["agent_s", "agent"],
      ["environment_s", "test environment"],
      ["apply_s", "applying the patch"],
      ["tests_s", "running the tests"],
    ];
    out.push({ kind: "heading", text: "Time per phase" }, { kind: "table", head: ["phase", "time"], rows: phases.filter(([k]) => k in timings).map(([k, label]) => [label, seconds(timings[k])]) });
  }
  const patch = str(v.patch);
  out.push({ kind: "code", title: "the evaluated patch", text: patch === null || patch === "" ? "(empty)" : patch, open: record.verdict !== "solved" });
  const tail = tests ? str((tests).log_tail) : null;
  if (tail) out.push({ kind: "code", title: "the test log's tail", text: tail });
  return out;
}
