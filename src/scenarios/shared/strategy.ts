import { GitGoodError } from "../../errors.js";
import type { ScenarioSession } from "../definition.js";

/** Calls a tool for a scripted strategy; a failed call stops it with `code` (the strategy, not the agent, is wrong). */
export async function callOrFail(
  session: ScenarioSession,
  code: "ORACLE_FAILED" | "BASELINE_FAILED",
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  const reason = code === "ORACLE_FAILED" ? "oracle: reproduce the recorded history" : "baseline strategy";
  const r = await session.call(tool, { ...args, reason });
  if (!r.ok) throw new GitGoodError(code, `${tool} failed: ${r.output}`);
  return r.output;
}
