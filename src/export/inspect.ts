import { createHash } from "node:crypto";
import { extrasOf } from "../runs/fields.js";
import { safeFileName } from "../util/file-names.js";
import { attemptsOf, type Attempt, type RunRead } from "./attempts.js";
import { chatMessages, conversationOf } from "../report/conversation.js";
import { zipArchive, type ZipEntry } from "./zip.js";

/** The Inspect AI log format version the export writes (`EvalLog.version`). */
const INSPECT_LOG_VERSION = 2;
/** The score name gitgood's verdict has in the log. */
const SCORER = "gitgood";

type Json = Record<string, unknown>;

/** Inspect's usage record. */
function usage(prompt: number, completion: number): Json {
  return { input_tokens: prompt, output_tokens: completion, total_tokens: prompt + completion };
}

/** A short stable id of a text (Inspect's eval and run ids are opaque strings). */
const shortId = (text: string): string => createHash("sha256").update(text).digest("base64url").slice(0, 22);

/** The messages of an attempt in Inspect's chat layout (tool arguments as objects, each tool message naming its function). */
function inspectMessages(attempt: Attempt): Json[] {
  if (!attempt.trajectory) return [];
  const conv = conversationOf(attempt.trajectory);
  const names = new Map(conv.turns.flatMap((t) => t.calls.map((c) => [c.id, c.name] as const)));
  return chatMessages(conv).map((m): Json => {
    if (m.role === "assistant") {
      return {
        role: "assistant",
        content: m.content ?? "",
        ...(m.tool_calls
          ? {
              tool_calls: m.tool_calls.map((c) => {
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
              }),
            }
          : {}),
      };
    }
    if (m.role === "tool") return { role: "tool", content: m.content, tool_call_id: m.tool_call_id, function: names.get(m.tool_call_id) ?? null };
    return { role: m.role, content: m.content };
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
  };
}

function endOf(attempt: Attempt): string {
  const start = Date.parse(attempt.record.started_at);
  return Number.isNaN(start) ? attempt.record.started_at : new Date(start + attempt.record.duration_ms).toISOString();
}

/**
 * A run as an Inspect AI `.eval` log: a zip of `header.json` (the log without samples: eval spec,
 * plan, results with gitgood's solve rate as accuracy, stats), one `samples/<id>_epoch_<n>.json` per
 * attempt (repeat r is epoch r + 1), `summaries.json` and `reductions.json`.
 */
export function inspectLog(run: RunRead, gitgoodVersion: string): Buffer {
  const attempts = attemptsOf(run);
  const model = run.config.identity.model?.name ?? `gitgood/${run.config.identity.agent}`;
  const epochs = Math.max(1, ...attempts.map((a) => extrasOf(a.record).repeat + 1));
  const ids = [...new Set(attempts.map(sampleId))];
  const solved = attempts.filter((a) => a.record.solved === true).length;
  const n = attempts.length;
  const accuracy = n === 0 ? 0 : solved / n;
  const stderr = n > 1 ? Math.sqrt((accuracy * (1 - accuracy)) / (n - 1)) : 0;
  const prompt = attempts.reduce((s, a) => s + a.record.tokens.prompt, 0);
  const completion = attempts.reduce((s, a) => s + a.record.tokens.completion, 0);
  const starts = attempts.map((a) => a.record.started_at).sort();
  const ends = attempts.map(endOf).sort();
  const header: Json = {
    version: INSPECT_LOG_VERSION,
    status: "success",
    eval: {
      eval_id: shortId(`eval:${run.dir}:${run.config.created_at}`),
      run_id: shortId(`run:${run.dir}:${run.config.created_at}`),
      created: run.config.created_at,
      task: `gitgood/${[...new Set(attempts.map((a) => a.record.scenario))].sort().join("+") || "run"}`,
      task_id: shortId(`task:${run.config.identity.samples}`),
      task_version: 0,
      task_attribs: {},
      task_args: {},
      task_args_passed: {},
      dataset: { name: String(run.config.identity.samples), samples: ids.length, sample_ids: ids, shuffled: false },
      model,
      model_generate_config: {},
      model_args: {},
      config: { epochs },
      packages: { gitgood: gitgoodVersion },
      metadata: { gitgood_run: run.label, agent: run.config.identity.agent, judges: run.config.judges },
    },
    plan: { name: "plan", steps: [{ solver: run.config.identity.agent, params: {}, params_passed: {} }], config: {} },
    results: {
      total_samples: n,
      completed_samples: n,
      scores: [
        {
          name: SCORER,
          scorer: SCORER,
          params: {},
          metrics: { accuracy: { name: "accuracy", value: accuracy, params: {} }, stderr: { name: "stderr", value: stderr, params: {} } },
        },
      ],
    },
    stats: {
      started_at: starts[0] ?? run.config.created_at,
      completed_at: ends.at(-1) ?? run.config.created_at,
      model_usage: { [model]: usage(prompt, completion) },
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
    const messages = inspectMessages(attempt);
    const task = attempt.trajectory ? conversationOf(attempt.trajectory).task : r.sample_id;
    const last = [...messages].reverse().find((m) => m.role === "assistant");
    const common = {
      id,
      epoch,
      input: task,
      target: r.verdict === "solved" ? "solved" : "",
      metadata: metadata(attempt),
      model_usage: { [model]: usage(r.tokens.prompt, r.tokens.completion) },
      role_usage: {},
      scores: { [SCORER]: score(attempt) },
      started_at: r.started_at,
      completed_at: endOf(attempt),
      total_time: r.duration_ms / 1000,
      ...(r.error ? { error: { message: `${r.error.code}: ${r.error.message}`, traceback: "", traceback_ansi: "" } } : {}),
    };
    const sample: Json = {
      ...common,
      messages,
      output: {
        model,
        choices: last ? [{ message: last, stop_reason: "stop" }] : [],
        completion: typeof last?.content === "string" ? last.content : "",
      },
      store: {},
      events: [],
      attachments: {},
    };
    entries.push({ name: `samples/${id}_epoch_${epoch}.json`, data: JSON.stringify(sample) });
    summaries.push({ ...common, completed: true, message_count: messages.length });
  }
  entries.push({ name: "summaries.json", data: JSON.stringify(summaries) });
  const reductions = [
    {
      scorer: SCORER,
      reducer: "mean",
      samples: ids.map((id) => {
        const mine = attempts.filter((a) => sampleId(a) === id);
        return { sample_id: id, value: mine.filter((a) => a.record.solved === true).length / mine.length, history: [] };
      }),
    },
  ];
  entries.push({ name: "reductions.json", data: JSON.stringify(reductions) });
  return zipArchive(entries);
}
