import { z } from "zod";
import { GitGoodError } from "../../errors.js";
import { readRegularFile } from "../../util/files.js";
import { abortedError } from "../abort.js";
import { scriptedReply } from "../scripted.js";
import type { ModelRequest } from "../types.js";
import type { ModelProvider } from "./registry.js";

const StepSchema = z.union([
  z.string(),
  z.strictObject({
    content: z.string().nullable().optional(),
    tool_calls: z.array(z.strictObject({ name: z.string(), arguments: z.unknown() })).optional(),
  }),
]);
const ScriptSchema = z.array(StepSchema).min(1);

/** How many answers the model has given so far in this conversation. */
function turnOf(request: ModelRequest): number {
  return request.messages.filter((m) => m.role === "assistant").length;
}

/**
 * `scripted/FILE`: a model that gives the replies of a JSON file (an array of texts, or `{content,
 * tool_calls: [{name, arguments}]}`), reply N at the N-th turn of each conversation, so every sample and every
 * parallel job gets the same script. For dry runs of a pipeline, no endpoint needed; never cached.
 */
export const scriptedProvider: ModelProvider = {
  name: "scripted",
  description: "replies from a JSON file, one per turn of each conversation (scripted/replies.json): dry runs without an endpoint",
  create(file) {
    const text = readRegularFile(file);
    if (text === null) throw new GitGoodError("BAD_OPTION", `scripted model: cannot read ${file} (a regular file of JSON replies)`);
    let steps: z.infer<typeof ScriptSchema>;
    try {
      steps = ScriptSchema.parse(JSON.parse(text));
    } catch (err) {
      const why = err instanceof z.ZodError ? (err.issues[0]?.message ?? "not a list of replies") : "not JSON";
      throw new GitGoodError("BAD_OPTION", `scripted model: ${file} is not a JSON array of replies (${why})`);
    }
    const model = `scripted/${file}`;
    return {
      model,
      complete: async (request) => {
        if (request.signal?.aborted) throw abortedError(model);
        const turn = turnOf(request);
        const step = steps[turn];
        if (step === undefined) throw new GitGoodError("MODEL_ERROR", `scripted model ${file} has no reply for turn ${turn + 1}`);
        return scriptedReply(step, turn);
      },
    };
  },
  cacheEndpoint: () => null,
  configuredEndpoint: () => null,
};
