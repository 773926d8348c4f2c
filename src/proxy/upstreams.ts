import type { Upstream } from "./server.js";
import type { UpstreamFamily } from "./api.js";

const OPENAI_API = "https://api.openai.com/v1";
const ANTHROPIC_API = "https://api.anthropic.com";

/**
 * The user's real endpoints as the environment gives them: OPENAI_BASE_URL / OPENAI_API_KEY (chat completions
 * and the Responses API) and ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY (the Messages API). A family whose key is
 * missing is still served when its base URL is set (a local server takes any key).
 */
export function upstreamsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<Record<UpstreamFamily, Upstream>> {
  const out: Partial<Record<UpstreamFamily, Upstream>> = {};
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) out.openai = { baseURL: env.OPENAI_BASE_URL || OPENAI_API, apiKey: env.OPENAI_API_KEY || "not-needed" };
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_BASE_URL) out.anthropic = { baseURL: env.ANTHROPIC_BASE_URL || ANTHROPIC_API, apiKey: env.ANTHROPIC_API_KEY || "not-needed" };
  return out;
}
