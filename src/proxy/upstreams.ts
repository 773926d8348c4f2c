import type { Upstream } from "./server.js";
import type { UpstreamFamily } from "./api.js";

const OPENAI_API = "https://api.openai.com/v1";
const ANTHROPIC_API = "https://api.anthropic.com";
const GEMINI_API = "https://generativelanguage.googleapis.com";

/**
 * The user's real endpoints as the environment gives them: OPENAI_BASE_URL / OPENAI_API_KEY (chat completions
 * and the Responses API), ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY (the Messages API) and GOOGLE_GEMINI_BASE_URL /
 * GEMINI_API_KEY (Gemini's generateContent; the base URL without a version). A family whose key is
 * missing is still served when its base URL is set (a local server takes any key).
 */
export function upstreamsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<Record<UpstreamFamily, Upstream>> {
  const out: Partial<Record<UpstreamFamily, Upstream>> = {};
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) out.openai = { baseURL: env.OPENAI_BASE_URL || OPENAI_API, apiKey: env.OPENAI_API_KEY || "not-needed" };
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_BASE_URL) out.anthropic = { baseURL: env.ANTHROPIC_BASE_URL || ANTHROPIC_API, apiKey: env.ANTHROPIC_API_KEY || "not-needed" };
  const geminiKey = env.GEMINI_API_KEY || env.GOOGLE_API_KEY;
  if (geminiKey || env.GOOGLE_GEMINI_BASE_URL) out.gemini = { baseURL: env.GOOGLE_GEMINI_BASE_URL || GEMINI_API, apiKey: geminiKey || "not-needed" };
  return out;
}
