import { PREDICTIONS_AGENT_KIND } from "./predictions-agent.js";
import { SWE } from "../../scenarios/swe/index.js";
import { defineFamily } from "../definition.js";
import { sweOutcome } from "./outcome-view.js";
import { SWE_CLI } from "./cli.js";
import { AGENTBEATS_FORMAT } from "./agentbeats.js";
import { SWE_SECTION, SWE_SCENARIO, agentBeatsResults } from "./report.js";
import { SWE_COMMAND_LINE } from "./command-line.js";
import { SWE_PARTICIPANT_TASK } from "./a2a-task.js";
import { SWE_HARBOR_TASK } from "./harbor-task.js";
import { SWE_RELEASE } from "./release.js";
import { SWE_IMPORTER } from "../../swe/dataset.js";
import { HINTS } from "./settings.js";

const pct = (f: number | null): string => (f === null ? "-" : `${(f * 100).toFixed(1)}%`);

/** SWE-style issue fixing: SWE-bench instances, judged by their tests; AgentBeats results for A2A. */
export const SWE_FAMILY = defineFamily({
  name: SWE.name,
  commandLine: SWE_COMMAND_LINE,
  scenarios: [SWE],
  importers: [SWE_IMPORTER],
  report: SWE_SECTION,
  outcomeView: sweOutcome,
  formats: [AGENTBEATS_FORMAT],
  cli: SWE_CLI,
  agents: [PREDICTIONS_AGENT_KIND],
  participantTask: SWE_PARTICIPANT_TASK,
  harborTasks: [SWE_HARBOR_TASK],
  release: SWE_RELEASE,
  // The AgentBeats green sends the hints; an assessment's `hints: false` leaves them out.
  a2aSettings: (config) => ({ [HINTS.namespace]: { [HINTS.key]: config.hints ?? true } }),
  // The progress line shows the instance's test status (resolved, no_op, …) rather than the verdict.
  a2aStatus(record) {
    const tests = record.scores.swe as { status?: unknown } | undefined;
    return typeof tests?.status === "string" ? tests.status : undefined;
  },
  a2aResult(records, agent, role) {
    const [swe] = agentBeatsResults(records, agent, role).results;
    if (!swe) return { lines: [], data: {} };
    return {
      lines: [
        `${SWE_SCENARIO}: ${swe.total_instances} instance(s), resolved ${pct(swe.resolved_pct)}, partially ${pct(swe.partially_resolved_pct)}, ` +
          `no-op ${pct(swe.no_op_pct)}, error ${pct(swe.error_pct)}; FAIL_TO_PASS ${pct(swe.fail_to_pass_passed_pct)}, PASS_TO_PASS ${pct(swe.pass_to_pass_passed_pct)}.`,
      ],
      data: { ...swe },
    };
  },
});
