import path from "node:path";
import type { ResultRecord } from "../runs/record.js";
import { RunStore } from "../runs/store.js";
import type { SampleDetail } from "./html.js";

/** A link from a page in `pageDir` to a file, relative, each path segment URL-encoded. */
function relativeLink(pageDir: string, file: string): string {
  return path.relative(pageDir, file).split(path.sep).map(encodeURIComponent).join("/");
}

/**
 * Reads each record's trajectory file for the HTML page, keyed by record key (missing, damaged or
 * out-of-place files are skipped); with `pageDir`, each detail links its file relative to the page.
 */
export function loadDetails(runDir: string, records: readonly ResultRecord[], pageDir?: string): Map<string, SampleDetail> {
  const store = RunStore.openExisting(runDir);
  const details = new Map<string, SampleDetail>();
  for (const r of records) {
    if (!r.trajectory) continue;
    try {
      const t = store.readTrajectory(r.trajectory) as { ground_truth_diff?: unknown } | null;
      const diff = typeof t?.ground_truth_diff === "string" ? t.ground_truth_diff : undefined;
      const href = pageDir === undefined ? undefined : relativeLink(pageDir, path.resolve(runDir, r.trajectory));
      details.set(r.key, { trajectory: t, diff, href });
    } catch {
      /* a missing or damaged trajectory only loses its detail view */
    }
  }
  return details;
}
