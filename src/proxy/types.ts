import type { ChatMessage } from "../model/types.js";

/*
 * The proxy's own types, a leaf every proxy file may import: the kinds of model API, where a request goes,
 * and what is recorded of an answer.
 */

/**
 * The model APIs the proxy passes through, each to an upstream of the same kind (no translation):
 * OpenAI chat completions, the OpenAI Responses API, the Anthropic Messages API and Gemini's generateContent
 * (./gemini.ts).
 */
export type ApiKind = "openai-chat" | "openai-responses" | "anthropic-messages" | "gemini-generate";

/** Which upstream a kind of request goes to: the OpenAI-style endpoint, the Anthropic one or the Gemini one. */
export type UpstreamFamily = "openai" | "anthropic" | "gemini";

/**
 * What a request path asks for: a model turn of one kind (recorded), or another call passed through
 * unrecorded. A kind that names the model and the stream in the path (Gemini) gives them here.
 */
export type Route = { record: true; kind: ApiKind; path: string; model?: string; stream?: boolean } | { record: false; family: UpstreamFamily; path: string };

/** Tokens of one answer as its usage fields give them. `prompt` counts every input token, cached ones included. */
export interface TurnUsage {
  prompt: number;
  completion: number;
  /** Input tokens read from the provider's prompt cache (part of `prompt`). */
  cacheRead: number;
  /** Input tokens written to the provider's prompt cache (Anthropic; part of `prompt`). */
  cacheWrite: number;
}

/** What the proxy records of one answer: the assistant's message in gitgood's chat shape, and its usage (null when the answer gave none). */
export interface TurnReply {
  message: Extract<ChatMessage, { role: "assistant" }>;
  usage: TurnUsage | null;
  stop: string | null;
}

/** How much of each request the trajectory keeps: its messages whole, or their count and digest. */
export type RecordModelIo = "full" | "digest";
export const RECORD_MODEL_IO: readonly RecordModelIo[] = ["digest", "full"];
