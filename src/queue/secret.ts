import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { GitGoodError } from "../errors.js";
import { canonicalJson } from "./canonical.js";

/** The variable a producer and its workers read the queue's shared secret from (or `--secret-file`). */
const QUEUE_SECRET_VARIABLE = "GITGOOD_QUEUE_SECRET";
/** The shortest secret taken (characters): a guessable one would sign for whoever guesses it. */
const MIN_SECRET_LENGTH = 16;

/** The key tickets and results are signed with, shared by a producer and its workers out of band (never in Redis). */
export interface QueueSecret {
  readonly key: Buffer;
}

/**
 * The queue's secret from `--secret-file FILE` (its text, without the trailing newline) or else from
 * GITGOOD_QUEUE_SECRET. None, or one shorter than MIN_SECRET_LENGTH, is refused in one line: a queue
 * whose jobs and results anyone who writes to Redis could forge is not started.
 */
export function queueSecret(file: string | undefined, env: NodeJS.ProcessEnv = process.env): QueueSecret {
  let text: string;
  let from: string;
  if (file !== undefined) {
    try {
      text = readFileSync(file, "utf8").replace(/\r?\n$/, "");
    } catch {
      throw new GitGoodError("NOT_FOUND", `--secret-file ${file} cannot be read`, { path: file });
    }
    from = `--secret-file ${file}`;
  } else {
    text = env[QUEUE_SECRET_VARIABLE] ?? "";
    from = QUEUE_SECRET_VARIABLE;
    if (text === "") {
      throw new GitGoodError(
        "BAD_OPTION",
        `the queue needs a secret shared by the producer and every worker: set ${QUEUE_SECRET_VARIABLE} or give --secret-file FILE (say, the output of 'openssl rand -hex 32')`,
      );
    }
  }
  if (text.length < MIN_SECRET_LENGTH) throw new GitGoodError("BAD_OPTION", `the queue secret of ${from} is shorter than ${MIN_SECRET_LENGTH} characters`);
  return { key: Buffer.from(text, "utf8") };
}

/** The signature (HMAC-SHA256, hex) of `value` for `purpose`: the canonical JSON of both, so no field moves between them. */
export function signValue(secret: QueueSecret, purpose: "job" | "result", value: unknown): string {
  return createHmac("sha256", secret.key).update(canonicalJson({ purpose, value })).digest("hex");
}

/** Whether `signature` is `value`'s for `purpose` under the secret (compared in constant time). */
export function signedBy(secret: QueueSecret, purpose: "job" | "result", value: unknown, signature: unknown): boolean {
  if (typeof signature !== "string" || !/^[0-9a-f]{64}$/.test(signature)) return false;
  return timingSafeEqual(Buffer.from(signValue(secret, purpose, value), "hex"), Buffer.from(signature, "hex"));
}
