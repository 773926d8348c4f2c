import { RESULTS_SCHEMA_VERSION, resultKey, type ResultRecord } from "../../src/runs/record.js";
import { RunStore } from "../../src/runs/store.js";

/** A results record with the fields the report reads; `extra` adds what other layers record (repeat, cache hits, judge usage). */
export function rec(
  sampleId: string,
  scenario: string,
  fields: Partial<ResultRecord> & { repeat?: number; cache_hits?: number; judge_tokens?: unknown; judge_cost_usd?: number | null } = {},
): ResultRecord {
  const solved = fields.solved === undefined ? true : fields.solved;
  const repeat = fields.repeat ?? 0;
  return {
    schema_version: RESULTS_SCHEMA_VERSION,
    key: `${resultKey(sampleId, scenario)}${fields.agent?.endsWith("+memory") ? "+memory" : ""}${repeat > 0 ? `#${repeat}` : ""}`,
    sample_id: sampleId,
    scenario,
    repository: "acme/calc",
    difficulty: "easy",
    agent: "llm:tiny",
    status: "success",
    solved,
    verdict: solved === null ? "unjudged" : solved ? "solved" : "unsolved",
    scores: {},
    error: null,
    turns: 1,
    tool_calls: 1,
    tokens: { prompt: 10, completion: 5 },
    cost_usd: null,
    started_at: "2024-01-01T00:00:00.000Z",
    duration_ms: 1000,
    trajectory: null,
    ...fields,
  } as ResultRecord;
}

/** A run directory holding `records`, as `gitgood run` leaves one. */
export function writeRun(dir: string, records: readonly ResultRecord[], agent = "llm:tiny"): void {
  const store = RunStore.open(dir, {
    schema_version: RESULTS_SCHEMA_VERSION,
    gitgood_version: "test",
    identity: { samples: "samples.jsonl", ids: null, limit: null, agent, model: null, where: null, history: null },
    limits: { jobs: null },
  });
  for (const r of records) store.append(r);
}
