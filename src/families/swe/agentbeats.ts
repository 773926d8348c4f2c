import { GitGoodError } from "../../errors.js";
import type { ReportFormat } from "../definition.js";
import { SWE_SCENARIO, agentBeatsResults } from "./report.js";

/** The agent an AgentBeats document is about: the one agent of the SWE attempts (or of the run). */
function agentOf(runDir: string, records: Parameters<typeof agentBeatsResults>[0], fallback: string): string {
  const swe = records.filter((r) => r.scenario === SWE_SCENARIO);
  const agents = [...new Set((swe.length > 0 ? swe : records).map((r) => r.agent))].sort();
  if (agents.length > 1) throw new GitGoodError("BAD_OPTION", `--agentbeats describes one agent, and ${runDir} has ${agents.join(", ")}`);
  return agents[0] ?? fallback;
}

/** The AgentBeats results document of a run's SWE attempts (`--agentbeats FILE`, `--participant ROLE`). */
export const AGENTBEATS_FORMAT: ReportFormat = {
  name: "agentbeats",
  description: "the AgentBeats results document of the run's SWE attempts (one run)",
  output: "file",
  options: [{ flags: "--participant <role>", help: "the role that names the agent in the AgentBeats document (default: agent)" }],
  check(flags, asked) {
    if (flags.participant === undefined) return;
    if (!asked) throw new GitGoodError("BAD_OPTION", "--participant goes with --agentbeats");
    if (typeof flags.participant !== "string" || flags.participant.trim() === "") throw new GitGoodError("BAD_OPTION", "--participant takes a role name, not an empty one");
  },
  render(run, ctx) {
    const role = typeof ctx.flags.participant === "string" ? ctx.flags.participant : "agent";
    return `${JSON.stringify(agentBeatsResults(run.records, agentOf(run.dir, run.records, run.agent), role), null, 2)}\n`;
  },
};
