import type { OutcomeBlock, OutcomeInput } from "../definition.js";
import { arr, facts, obj, str, subject, toneOf, yesNo, type Json } from "../outcome-kit.js";

/**
 * GitGoodBench's view of an attempt's outcome. MCR: the conflict regions git left, the agent's
 * resolution of each file against the recorded merge (byte for byte, and the whole tree). IR and ICC:
 * the expected (original) and the produced history side by side, the history checks, and the judges'
 * verdicts with their reasons.
 */
export function gitgoodbenchOutcome(input: OutcomeInput): OutcomeBlock[] {
  return input.record.scenario === "MCR" ? mergeOutcome(input) : historyOutcome(input);
}

function mergeOutcome({ record, trajectory }: OutcomeInput): OutcomeBlock[] {
  const score = obj(record.scores.exact_match);
  const diff = trajectory?.ground_truth_diff;
  const out: OutcomeBlock[] = [{ kind: "heading", text: "Against the recorded merge" }];
  if (score) {
    const files = arr(score.files).flatMap((f) => (obj(f) ? [obj(f) as Json] : []));
    const exact = files.filter((f) => f.exact === true).length;
    if (score.tree_matches === true && (diff === undefined || diff === "")) out.push({ kind: "text", tone: "good", text: "Identical to the ground truth." });
    else if (score.tree_matches === false && files.length > 0 && exact === files.length) {
      out.push({
        kind: "text",
        tone: "bad",
        text:
          "The conflicted files match the recorded merge, but the resulting tree is not the merge's tree: the recorded merge also changed text outside the conflict regions or other files" +
          (score.resolvable === false ? " (the sample is not resolvable with the published tools)" : "") +
          ".",
      });
    } else {
      out.push({ kind: "text", tone: "bad", text: `Differs from the recorded merge: ${exact} of ${files.length} conflicted file(s) byte-identical; conflicts left ${String(score.conflicts_left ?? "–")}; whole tree ${score.tree_matches === true ? "matches" : "does not match"}.` });
    }
    if (score.resolvable === false) out.push({ kind: "text", tone: "muted", text: `Not resolvable by replacing conflict regions: ${str(score.unresolvable_reason) ?? "no reason recorded"}.` });
    if (files.length > 0) {
      out.push({
        kind: "table",
        head: ["file", "byte-exact", "ignoring whitespace"],
        rows: files.map((f) => [str(f.path) ?? "?", yesNo(f.exact), yesNo(f.ignoring_whitespace)]),
        tones: files.map((f) => [null, toneOf(f.exact), toneOf(f.ignoring_whitespace)]),
      });
    }
  } else if (diff === "") out.push({ kind: "text", tone: "good", text: "Identical to the ground truth." });
  const conflicts = arr(obj(trajectory?.context)?.conflicts).flatMap((c) => (obj(c) ? [obj(c) as Json] : []));
  if (conflicts.length > 0) {
    out.push({ kind: "heading", text: `Conflict regions (${conflicts.length})` });
    for (const c of conflicts) out.push({ kind: "code", title: `conflict ${String(c.index ?? "?")}: ${str(c.file) ?? "?"} at line ${String(c.first_line ?? "?")}`, text: str(c.text) ?? "" });
  }
  const resolved = arr(obj(trajectory?.final)?.files).flatMap((f) => (obj(f) ? [obj(f) as Json] : []));
  if (resolved.length > 0) {
    out.push({ kind: "heading", text: "The agent's resolution" });
    for (const f of resolved) {
      const content = str(f.content);
      const text = content === null ? "(deleted)" : f.encoding === "base64" ? `(binary, ${Buffer.from(content, "base64").length} bytes)` : content;
      out.push({ kind: "code", title: str(f.path) ?? "?", text });
    }
  }
  if (diff) out.push({ kind: "code", title: "the agent's tree against the recorded merge (diff)", text: diff, open: true });
  return out;
}

/** The original chain's subjects, as the history ground truth lists them ("Original commits (N):" then "  1. subject"). */
function originalSubjects(groundTruth: string | undefined): string[] | null {
  if (!groundTruth?.startsWith("Original commits (")) return null;
  const lines = groundTruth.split("\n").slice(1);
  const out: string[] = [];
  for (const line of lines) {
    if (!line.startsWith("  ")) break;
    out.push(line.trim());
  }
  return out;
}

function historyOutcome({ record, trajectory }: OutcomeInput): OutcomeBlock[] {
  const out: OutcomeBlock[] = [];
  const checks = obj(record.scores.checks);
  const final = obj(trajectory?.final);
  const commits = arr(final?.commits).flatMap((c) => (obj(c) ? [obj(c) as Json] : []));
  const expected = originalSubjects(trajectory?.ground_truth_diff);
  out.push({ kind: "heading", text: "Expected and produced history" });
  out.push({
    kind: "columns",
    columns: [
      { title: `Expected: the original chain${expected ? ` (${expected.length})` : ""}`, text: expected ? expected.join("\n") || "(none)" : "(not recorded with this attempt)" },
      { title: `Produced by the agent (${commits.length})`, text: commits.map((c, i) => `${i + 1}. ${(str(c.oid) ?? "").slice(0, 12)} ${subject(str(c.message) ?? "")}`).join("\n") || "(none)" },
    ],
  });
  if (final && (final.done !== true || final.pending !== null)) out.push({ kind: "text", tone: "bad", text: `Not finished: ${str(final.pending) ?? "the agent did not finish"}.` });
  if (checks) {
    out.push({ kind: "heading", text: "History checks" });
    out.push(
      facts([
        ["finished", checks.finished],
        ["commits (original)", `${String(checks.commits ?? "–")} (${String(checks.original_commits ?? "–")})`],
        ["final tree equals the chain tip's", checks.tree_matches_tip],
        ["empty messages", checks.empty_messages],
        ["duplicate messages", checks.duplicate_messages],
        ["commits that change nothing", checks.empty_commits],
      ]),
    );
  }
  const judge = obj(record.scores.judge);
  out.push({ kind: "heading", text: "Judges" });
  if (!judge) out.push({ kind: "text", tone: "muted", text: "No judge looked at this history (run or score with --judge): the verdict is open." });
  else {
    const verdicts = arr(judge.verdicts).flatMap((v) => (obj(v) ? [obj(v) as Json] : []));
    out.push({
      kind: "table",
      head: ["judge", "agent's history shown", "preferred", "reason"],
      rows: verdicts.map((v) => [str(v.judge) ?? "?", v.agent_position === 1 ? "first" : "second", winnerText(v), str(v.reason) ?? ""]),
      tones: verdicts.map((v) => [null, null, winnerTone(v), null]),
    });
    const per = arr(judge.judges).flatMap((j) => (obj(j) ? [obj(j) as Json] : []));
    if (per.length > 0) out.push({ kind: "text", text: per.map((j) => `${str(j.judge) ?? "?"}: ${j.wins_both === true ? "prefers the agent's history in both orders" : "does not prefer it in both orders"}`).join("; ") });
    // Records written before the judge looked for it have no instructions_to_judge: nothing to show.
    const notes = arr(judge.instructions_to_judge).flatMap((f) => (obj(f) ? [obj(f) as Json] : []));
    if (notes.length > 0) {
      out.push({ kind: "text", tone: "bad", text: "The agent's history holds text addressed to the judge (flagged only: the verdict is the judges'):" });
      out.push({
        kind: "table",
        head: ["where", "rule", "excerpt"],
        rows: notes.map((f) => [`commit ${String(f.commit ?? "?")}, ${str(f.part) ?? "?"}`, str(f.rule) ?? "?", str(f.excerpt) ?? ""]),
      });
    }
  }
  for (const [i, c] of commits.entries()) out.push({ kind: "code", title: `produced commit ${i + 1}: ${subject(str(c.message) ?? "")}`, text: `${str(c.message) ?? ""}\n\n${str(c.diff) ?? ""}` });
  const tree = trajectory?.ground_truth_diff?.split("\n").findIndex((l) => l.startsWith("Final tree"));
  if (tree !== undefined && tree >= 0) out.push({ kind: "code", title: "final tree against the chain tip", text: (trajectory?.ground_truth_diff ?? "").split("\n").slice(tree).join("\n") });
  return out;
}

/** Whom a judge preferred: the agent's history, the original, a tie, or no valid answer. */
function winnerText(v: Json): string {
  return v.winner === "agent" ? "the agent's" : v.winner === "original" ? "the original" : v.winner === "tie" ? "tie" : "no valid answer";
}
function winnerTone(v: Json): "good" | "bad" | null {
  return v.winner === "agent" ? "good" : v.winner === "original" ? "bad" : null;
}
