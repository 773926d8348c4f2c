import { createHash } from "node:crypto";
import path from "node:path";
import { runJudges } from "../runs/config.js";
import { extrasOf, tokensOf } from "../runs/fields.js";
import { safeFileName } from "../util/file-names.js";
import { attemptsOf, type Attempt, type RunRead } from "./attempts.js";
import { chatMessages, conversationOf, type Conversation } from "../report/conversation.js";
import { Attachments, inspectTranscript, inspectUsage, mapMessageText } from "./inspect-events.js";
import { agentPrices, qualifiedModelName } from "./models.js";
import { zipArchive, type ZipEntry } from "./zip.js";

/** The Inspect AI log format version the export writes (`EvalLog.version`). */
const INSPECT_LOG_VERSION = 2;
/** The scorer of every attempt; each scenario's attempts also get a scorer named for the scenario, so Inspect breaks the results down. */
const SCORER = "gitgood";

type Json = Record<string, unknown>;
type ChatMessage = ReturnType<typeof chatMessages>[number];

/** A short stable id of a text (Inspect's eval and run ids are opaque strings). */
const shortId = (text: string): string => createHash("sha256").update(text).digest("base64url").slice(0, 22);

/** A tool call's arguments as Inspect keeps them: an object, or {} with the text as the parse error. */
function toolCall(c: NonNullable<Extract<ChatMessage, { role: "assistant" }>["tool_calls"]>[number]): Json {
  let args: unknown;
  try {
    args = JSON.parse(c.function.arguments);
  } catch {
    args = undefined;
  }
  const object = typeof args === "object" && args !== null && !Array.isArray(args);
  return {
    id: c.id,
    function: c.function.name,
    arguments: object ? args : {},
    type: "function",
    ...(object ? {} : { parse_error: `arguments are not a JSON object: ${c.function.arguments.slice(0, 200)}` }),
  };
}

/**
 * The messages of an attempt in Inspect's chat layout (tool arguments as objects, each tool message naming
 * its function), each with an id unique in the log: `idPrefix` and its place.
 */
function inspectMessages(conv: Conversation, idPrefix: string): Json[] {
  const names = new Map(conv.turns.flatMap((t) => t.calls.map((c) => [c.id, c.name] as const)));
  return chatMessages(conv).map((m, i): Json => {
    const id = `${idPrefix}-${i}`;
    if (m.role === "assistant") return { id, role: "assistant", content: m.content ?? "", ...(m.tool_calls ? { tool_calls: m.tool_calls.map(toolCall) } : {}) };
    if (m.role === "tool") return { id, role: "tool", content: m.content, tool_call_id: m.tool_call_id, function: names.get(m.tool_call_id) ?? null };
    return { id, role: m.role, content: m.content };
  });
}

/** Inspect's `Score` of an attempt: C for solved, I otherwise, with gitgood's verdict and scores. */
function score(attempt: Attempt): Json {
  const r = attempt.record;
  return {
    value: r.solved === true ? "C" : "I",
    answer: r.verdict,
    ...(r.error ? { explanation: `${r.error.code}: ${r.error.message}` } : {}),
    metadata: { verdict: r.verdict, status: r.status, scores: r.scores },
    history: [],
  };
}

/** The scorers of an attempt's sample: gitgood's, and its scenario's. */
function scoresOf(attempt: Attempt): Record<string, Json> {
  const s = score(attempt);
  return { [SCORER]: s, [attempt.record.scenario]: s };
}

/** An attempt's id in the log: its key without the repeat (the repeat is the epoch). */
function sampleId(attempt: Attempt): string {
  return safeFileName(attempt.record.key.replace(/#\d+$/, ""));
}

function metadata(attempt: Attempt): Json {
  const r = attempt.record;
  return {
    sample_id: r.sample_id,
    scenario: r.scenario,
    repository: r.repository,
    difficulty: r.difficulty,
    language: r.programming_language ?? null,
    agent: r.agent,
    verdict: r.verdict,
    status: r.status,
    turns: r.turns,
    tool_calls: r.tool_calls,
    cost_usd: r.cost_usd,
    duration_ms: r.duration_ms,
    history_probes: r.history_probes ?? null,
  };
}

function endOf(attempt: Attempt): string {
  const start = Date.parse(attempt.record.started_at);
  return Number.isNaN(start) ? attempt.record.started_at : new Date(start + attempt.record.duration_ms).toISOString();
}

/** Inspect's `EvalScore` of some attempts: their solve rate as accuracy, its standard error, how many it scored. */
function evalScore(name: string, scored: readonly Attempt[], total: number): Json {
  const n = scored.length;
  const accuracy = n === 0 ? 0 : scored.filter((a) => a.record.solved === true).length / n;
  const stderr = n > 1 ? Math.sqrt((accuracy * (1 - accuracy)) / (n - 1)) : 0;
  return {
    name,
    scorer: name,
    params: {},
    metrics: { accuracy: { name: "accuracy", value: accuracy, params: {} }, stderr: { name: "stderr", value: stderr, params: {} } },
    scored_samples: n,
    unscored_samples: total - n,
  };
}

/** The dataset's name without the exporting machine's directories: the samples files' names. */
function datasetName(samples: string): string {
  return samples
    .split(",")
    .map((s) => path.basename(s))
    .join(",");
}

/** Adds a sample's usage per model into a run's. */
function addUsage(into: Record<string, Json>, from: Record<string, Json>): void {
  for (const [model, u] of Object.entries(from)) {
    const known = into[model];
    const cost = (x: Json | undefined) => (typeof x?.total_cost === "number" ? x.total_cost : null);
    const both = known ? [cost(known), cost(u)] : [cost(u)];
    const prompt = ((known?.input_tokens as number | undefined) ?? 0) + (u.input_tokens as number);
    const completion = ((known?.output_tokens as number | undefined) ?? 0) + (u.output_tokens as number);
    into[model] = inspectUsage(prompt, completion, both.some((c) => c === null) ? null : Math.round(both.reduce((a: number, c) => a + (c ?? 0), 0) * 1e6) / 1e6);
  }
}

/** A sample's tokens per model: the agent's when measured (with their cost when known) and each judge's. */
function sampleUsage(attempt: Attempt, model: string): Record<string, Json> {
  const r = attempt.record;
  const tokens = tokensOf(r);
  // An agent whose usage was not measured has no entry: Inspect would show its 0 tokens as spent.
  const out: Record<string, Json> = tokens === null ? {} : { [model]: inspectUsage(tokens.prompt, tokens.completion, r.cost_usd) };
  for (const j of attempt.trajectory?.judge_usage ?? []) addUsage(out, { [qualifiedModelName(j.model)]: inspectUsage(j.prompt_tokens, j.completion_tokens) });
  return out;
}

/**
 * A run as an Inspect AI `.eval` log: a zip of `header.json` (the log without samples: eval spec, plan,
 * results with gitgood's solve rate as accuracy overall and per scenario, stats), one
 * `samples/<id>_epoch_<n>.json` per attempt (repeat r is epoch r + 1) with its messages and its transcript
 * as Inspect's events, `summaries.json` and `reductions.json`.
 */
export function inspectLog(run: RunRead, gitgoodVersion: string): Buffer {
  const attempts = attemptsOf(run);
  const named = run.config.identity.model?.name;
  const model = named ? qualifiedModelName(named) : `gitgood/${run.config.identity.agent}`;
  const prices = agentPrices(run);
  const epochs = Math.max(1, ...attempts.map((a) => extrasOf(a.record).repeat + 1));
  const ids = [...new Set(attempts.map(sampleId))];
  const scenarios = [...new Set(attempts.map((a) => a.record.scenario))].sort();
  const n = attempts.length;
  const starts = attempts.map((a) => a.record.started_at).sort();
  const ends = attempts.map(endOf).sort();
  const usage: Record<string, Json> = {};
  for (const a of attempts) addUsage(usage, sampleUsage(a, model));
  const header: Json = {
    version: INSPECT_LOG_VERSION,
    status: "success",
    eval: {
      eval_id: shortId(`eval:${run.label}:${run.config.created_at}`),
      run_id: shortId(`run:${run.label}:${run.config.created_at}`),
      created: run.config.created_at,
      task: `gitgood/${scenarios.join("+") || "run"}`,
      task_id: shortId(`task:${run.config.identity.samples}`),
      task_version: 0,
      task_attribs: {},
      task_args: {},
      task_args_passed: {},
      dataset: { name: datasetName(run.config.identity.samples), samples: ids.length, sample_ids: ids, shuffled: false },
      model,
      model_generate_config: {},
      model_args: {},
      config: { epochs },
      packages: { gitgood: gitgoodVersion },
      metadata: { gitgood_run: run.label, agent: run.config.identity.agent, judges: runJudges(run.config) },
    },
    plan: { name: "plan", steps: [{ solver: run.config.identity.agent, params: {}, params_passed: {} }], config: {} },
    results: {
      total_samples: n,
      completed_samples: n,
      scores: [evalScore(SCORER, attempts, n), ...scenarios.map((s) => evalScore(s, attempts.filter((a) => a.record.scenario === s), n))],
    },
    stats: {
      started_at: starts[0] ?? run.config.created_at,
      completed_at: ends.at(-1) ?? run.config.created_at,
      model_usage: usage,
      role_usage: {},
      connection_limit_history: [],
    },
    invalidated: false,
    tags: [],
    metadata: {},
  };
  const entries: ZipEntry[] = [{ name: "header.json", data: JSON.stringify(header) }];
  const summaries: Json[] = [];
  for (const attempt of attempts) {
    const r = attempt.record;
    const id = sampleId(attempt);
    const epoch = extrasOf(r).repeat + 1;
    const conv = attempt.trajectory ? conversationOf(attempt.trajectory) : null;
    const attachments = new Attachments();
    const guard = (text: string) => attachments.ref(text);
    const messages = conv ? inspectMessages(conv, shortId(`${run.label}/${r.key}`)).map((m) => mapMessageText(m, guard)) : [];
    const last = [...messages].reverse().find((m) => m.role === "assistant");
    const target = r.verdict === "solved" ? "solved" : "";
    const scores = scoresOf(attempt);
    const common = {
      id,
      epoch,
      input: conv ? conv.task : r.sample_id,
      target,
      metadata: metadata(attempt),
      model_usage: sampleUsage(attempt, model),
      role_usage: {},
      scores,
      started_at: r.started_at,
      completed_at: endOf(attempt),
      total_time: r.duration_ms / 1000,
      ...(r.error ? { error: { message: `${r.error.code}: ${r.error.message}`, traceback: "", traceback_ansi: "" } } : {}),
    };
    const events = conv ? inspectTranscript({ conv, messages, attachments, startedAt: r.started_at, durationMs: r.duration_ms, model, prices, scores, target }) : [];
    const sample: Json = {
      ...common,
      input: guard(common.input),
      messages,
      output: {
        model,
        choices: last ? [{ message: last, stop_reason: "stop" }] : [],
        completion: typeof last?.content === "string" ? last.content : "",
      },
      store: {},
      events,
      attachments: attachments.texts,
    };
    entries.push({ name: `samples/${id}_epoch_${epoch}.json`, data: JSON.stringify(sample) });
    summaries.push({ ...common, completed: true, message_count: messages.length });
  }
  entries.push({ name: "summaries.json", data: JSON.stringify(summaries) });
  const reductions = [SCORER, ...scenarios].map((scorer) => {
    const mine = scorer === SCORER ? attempts : attempts.filter((a) => a.record.scenario === scorer);
    return {
      scorer,
      reducer: "mean",
      samples: [...new Set(mine.map(sampleId))].map((sid) => {
        const of = mine.filter((a) => sampleId(a) === sid);
        return { sample_id: sid, value: of.filter((a) => a.record.solved === true).length / of.length, history: [] };
      }),
    };
  });
  entries.push({ name: "reductions.json", data: JSON.stringify(reductions) });
  return zipArchive(entries);
}
