import { GitGoodError } from "../errors.js";
import { abortedError, untilAborted } from "./abort.js";
import type { ModelClient, ModelReply, ModelRequest, ToolCall, Usage } from "./types.js";

/**
 * A reply a script can give: plain text, tool calls, or a function of the request that gives one
 * (at once, or later through a promise: a model that is slow or never answers).
 */
export type ScriptStep =
  | string
  | { content?: string | null; tool_calls?: { name: string; arguments: unknown }[]; usage?: Partial<Usage> }
  | ((request: ModelRequest) => ScriptStep | Promise<ScriptStep>);

/**
 * A model that answers from a script, for tests and dry runs. Every request is recorded. Running past
 * the end of the script is an error; an aborted request rejects with ABORTED at once.
 */
export class ScriptedModelClient implements ModelClient {
  readonly requests: ModelRequest[] = [];
  private step = 0;

  constructor(
    private readonly script: readonly ScriptStep[],
    readonly model = "scripted",
  ) {}

  /** Records the request and answers with the script's next step. Rejects with `MODEL_ERROR` past the script's end, `ABORTED` when the request's signal fires. */
  async complete(request: ModelRequest): Promise<ModelReply> {
    if (request.signal?.aborted) throw abortedError(this.model);
    this.requests.push({ ...request, messages: [...request.messages] });
    const step = this.step++;
    let next = this.script[step];
    if (next === undefined) throw new GitGoodError("MODEL_ERROR", `scripted model has no reply #${step + 1}`);
    while (typeof next === "function") next = await untilAborted(Promise.resolve(next(request)), request.signal, this.model);
    return scriptedReply(next, step);
  }
}

/** A script's reply as the model's answer; `step` (0-based) numbers its tool calls' ids. */
export function scriptedReply(next: Exclude<ScriptStep, (request: ModelRequest) => unknown>, step: number): ModelReply {
  const reply = typeof next === "string" ? { content: next } : next;
  const calls: ToolCall[] = (reply.tool_calls ?? []).map((c, i) => ({
    id: `call_${step + 1}_${i}`,
    type: "function",
    function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) },
  }));
  return {
    message: { role: "assistant", content: reply.content ?? null, ...(calls.length ? { tool_calls: calls } : {}) },
    usage: { prompt_tokens: reply.usage?.prompt_tokens ?? 10, completion_tokens: reply.usage?.completion_tokens ?? 5 },
    finish_reason: calls.length ? "tool_calls" : "stop",
  };
}
