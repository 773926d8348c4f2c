import { createHash } from "node:crypto";
import { sseData } from "./api.js";
import type { ApiKind } from "./types.js";

/*
 * Token-faithful traffic for on-policy training: an OpenAI-compatible server such as vLLM or SGLang can give,
 * beside the text, the token ids of the prompt (`prompt_token_ids`) and of the answer (`token_ids`) and the
 * answer's log-probabilities (`logprobs`). The proxy passes every answer to the agent byte for byte; this
 * file reads those fields out of it, so that the trajectory keeps them as the endpoint gave them.
 */

/** The token fields of one answer, each as the endpoint gave it (absent when it gave none). */
export interface AnswerTokens {
  prompt_token_ids?: unknown;
  token_ids?: unknown;
  logprobs?: unknown;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null);

/** The token fields of a whole JSON chat completion: of its first choice, the prompt's at the top (vLLM) or in the choice. */
function ofJson(body: Json): AnswerTokens {
  const choice = obj(Array.isArray(body.choices) ? (body.choices as unknown[])[0] : null) ?? {};
  const out: AnswerTokens = {};
  const prompt = body.prompt_token_ids ?? choice.prompt_token_ids;
  if (prompt !== undefined && prompt !== null) out.prompt_token_ids = prompt;
  if (choice.token_ids !== undefined && choice.token_ids !== null) out.token_ids = choice.token_ids;
  if (choice.logprobs !== undefined && choice.logprobs !== null) out.logprobs = choice.logprobs;
  return out;
}

/** The token fields of a streamed chat completion: the prompt's from the chunk that gives them, the answer's joined in order. */
function ofStream(events: Json[]): AnswerTokens {
  const out: AnswerTokens = {};
  const ids: unknown[] = [];
  const content: unknown[] = [];
  let sawIds = false;
  let sawLogprobs = false;
  for (const e of events) {
    const choice = obj(Array.isArray(e.choices) ? (e.choices as unknown[])[0] : null);
    const prompt = e.prompt_token_ids ?? choice?.prompt_token_ids;
    if (out.prompt_token_ids === undefined && prompt !== undefined && prompt !== null) out.prompt_token_ids = prompt;
    if (!choice) continue;
    if (Array.isArray(choice.token_ids)) {
      sawIds = true;
      ids.push(...(choice.token_ids as unknown[]));
    }
    const lp = obj(choice.logprobs);
    if (lp && Array.isArray(lp.content)) {
      sawLogprobs = true;
      content.push(...(lp.content as unknown[]));
    }
  }
  if (sawIds) out.token_ids = ids;
  if (sawLogprobs) out.logprobs = { content };
  return out;
}

/** The token fields of an OpenAI chat answer (whole or streamed), or null when it gave none (or is another kind). */
export function answerTokens(kind: ApiKind, text: string, streamed: boolean): AnswerTokens | null {
  if (kind !== "openai-chat") return null;
  let tokens: AnswerTokens;
  try {
    if (streamed) tokens = ofStream(sseData(text).map(obj).filter((e): e is Json => e !== null));
    else tokens = ofJson(obj(JSON.parse(text)) ?? {});
  } catch {
    return null;
  }
  return Object.keys(tokens).length > 0 ? tokens : null;
}

/**
 * The token fields as the trajectory keeps them: the answer's as given; the prompt's as given when the run
 * records requests whole (`full`), else as their count and digest, as the request's messages are (token ids
 * spell the prompt out).
 */
export function recordedTokens(tokens: AnswerTokens, full: boolean): Json {
  const out: Json = { ...tokens };
  if (!full && tokens.prompt_token_ids !== undefined) {
    const text = JSON.stringify(tokens.prompt_token_ids);
    out.prompt_token_ids = {
      count: Array.isArray(tokens.prompt_token_ids) ? tokens.prompt_token_ids.length : null,
      sha256: createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16),
    };
  }
  return out;
}
