import { createHash } from "node:crypto";
import { sampleToJson, type Sample } from "./sample.js";

/**
 * What a set of samples is, independent of the file it came from or the order it was listed in: the SHA-256
 * of the samples' canonical JSON lines, sorted. Two runs over the same samples share it wherever the samples
 * were read from; a sample added, removed or changed in any field changes it.
 */
export function samplesDigest(samples: readonly Sample[]): string {
  const lines = samples.map((s) => sampleToJson(s)).sort();
  const hash = createHash("sha256");
  for (const line of lines) hash.update(line).update("\n");
  return `sha256:${hash.digest("hex")}`;
}
