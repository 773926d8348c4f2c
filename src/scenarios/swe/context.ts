import type { InitialContext } from "../types.js";
import type { SweHost } from "./types.js";

/** The issue to fix, the repository and its commit, and the hints when asked for, as data and as text. */
export function sweContext(s: SweHost): InitialContext {
  const sc = s.sample.scenario;
  const hints = s.hintsShown && sc.hints_text.trim() !== "" ? sc.hints_text : null;
  const text = [
    `SWE task ${sc.instance_id} in ${sc.repo}, checked out at ${sc.base_commit}.`,
    "Fix the issue below by changing the repository's files; your work tree's changes are your answer.",
    "",
    "Issue:",
    sc.problem_statement.trimEnd(),
  ];
  if (hints !== null) text.push("", "Hints (from the issue's discussion):", hints.trimEnd());
  if (s.invalidReason !== null) text.push("", `This instance failed its own validation and is not worked: ${s.invalidReason}`);
  return {
    data: {
      scenario: "swe",
      sample_id: s.sample.id,
      instance_id: sc.instance_id,
      repo: sc.repo,
      base_commit: sc.base_commit,
      problem_statement: sc.problem_statement,
      hints_text: hints,
      invalid: s.invalidReason,
    },
    text: text.join("\n"),
  };
}
