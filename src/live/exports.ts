import { createRequire } from "node:module";
import { unzipSync } from "fflate";
import { atifTrajectory } from "../export/atif.js";
import { attemptsOf, readRun } from "../export/attempts.js";
import { inspectLog } from "../export/inspect.js";
import { agentPrices, qualifiedModelName } from "../export/models.js";
import { SFT_FORMATS, sftExport } from "../export/sft.js";
import type { CanaryHit } from "./canary.js";

/*
 * The exports of a release's gate runs, checked for the canary: what `gitgood export sft` (both layouts,
 * every attempt), `export atif` and `export inspect` would write of each run, made in memory. An Inspect log
 * is a zip of deflated files: each is inflated before it is searched, since a token deflated is not in the
 * archive's bytes.
 */

const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

/** Every file the run exports of `dir` would write, by a name that says which export and file it is. */
export function runExportFiles(dir: string): Map<string, Buffer> {
  const run = readRun(dir);
  const files = new Map<string, Buffer>();
  for (const format of SFT_FORMATS) {
    const { lines } = sftExport([run], { solvedOnly: false }, format);
    files.set(`sft ${format}`, Buffer.from(lines.map((l) => `${l}\n`).join(""), "utf8"));
  }
  const named = run.config.identity.model?.name;
  const model = named ? qualifiedModelName(named) : null;
  const prices = agentPrices(run);
  for (const { record, trajectory } of attemptsOf(run)) {
    if (trajectory) files.set(`atif ${record.key}.json`, Buffer.from(JSON.stringify(atifTrajectory(run.label, pkg.version, record, trajectory, model, prices)), "utf8"));
  }
  const log = inspectLog(run, pkg.version);
  files.set("inspect .eval", log);
  for (const [name, bytes] of Object.entries(unzipSync(log))) files.set(`inspect .eval/${name}`, Buffer.from(bytes));
  return files;
}

/** The exports of each run directory searched for the needles: how many files were searched, and the hits. */
export function scanRunExports(dirs: readonly string[], needles: readonly string[], label: (dir: string) => string): { files: number; hits: CanaryHit[] } {
  const hits: CanaryHit[] = [];
  let files = 0;
  for (const dir of dirs) {
    for (const [name, bytes] of runExportFiles(dir)) {
      files++;
      const found = needles.find((n) => bytes.includes(n));
      if (found !== undefined) hits.push({ where: `export ${name} of ${label(dir)}`, found });
    }
  }
  return { files, hits };
}
