import type { RunConfig } from "../runs/config.js";
import type { ResultRecord } from "../runs/record.js";
import { RunStore } from "../runs/store.js";

/** A run directory as the leaderboard ranks it: its run.json, its records and each sample's date. */
export interface RankedRun {
  label: string;
  dir: string;
  config: RunConfig;
  records: readonly ResultRecord[];
  /** Each sample's date, by sample id, read from the sample its trajectories hold (null: the sample says none). */
  dates: ReadonlyMap<string, string | null>;
}

const isObj = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A sample's date: its scenario's `committed_at` (a merge's merge commit, a chain's newest commit), else its
 * scenario's `created_at` (an issue's); null when it says neither as a date.
 */
function sampleDate(sample: unknown): string | null {
  const scenario = isObj(sample) ? sample["scenario"] : undefined;
  if (!isObj(scenario)) return null;
  for (const field of ["committed_at", "created_at"]) {
    const value = scenario[field];
    if (typeof value === "string" && !Number.isNaN(Date.parse(value))) return value;
  }
  return null;
}

/**
 * The date of each sample the records name, from one trajectory of it (the first record's that has one: the
 * sample is the same in all of them); null where that trajectory says none or cannot be read.
 */
function datesOf(store: RunStore, records: readonly ResultRecord[]): Map<string, string | null> {
  const dates = new Map<string, string | null>();
  for (const r of records) {
    if (dates.has(r.sample_id) || r.trajectory === null) continue;
    let date: string | null;
    try {
      const trajectory = store.readTrajectory(r.trajectory);
      date = isObj(trajectory) ? sampleDate(trajectory["sample"]) : null;
    } catch {
      date = null; // a missing or damaged trajectory leaves the date unknown
    }
    dates.set(r.sample_id, date);
  }
  return dates;
}

/** Reads a run directory for the leaderboard (one line and a non-zero exit when it is not one). */
export function readRankedRun(dir: string, label: string): RankedRun {
  const { config, records } = RunStore.read(dir);
  return { label, dir, config, records, dates: datesOf(RunStore.openExisting(dir), records) };
}

/** Identity fields that say which agent ran, not what it was evaluated on: they may differ between ranked runs. */
const AGENT_FIELDS = new Set(["agent", "model", "spec.memory"]);
/** Where the samples and repositories were read from: not what they are. */
const PLACE_FIELDS = new Set(["samples", "where"]);
/** How the samples were selected: the digest says what the selection is, when both runs have one. */
const SELECTION_FIELDS = new Set(["spec.ids", "spec.limit", "spec.difficulties", "spec.languages", "spec.sample"]);

/** A value in a difference line: JSON (so that no record's text can break the line), cut to a readable length. */
function shown(value: unknown): string {
  if (value === undefined) return "none";
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const SHOWN_KEYS = 3;

/** Keys of `a` not in `b`, as a count and the first few. */
function missing(a: ReadonlySet<string>, b: ReadonlySet<string>): { n: number; first: string } {
  const keys = [...a].filter((k) => !b.has(k)).sort();
  const first = keys.slice(0, SHOWN_KEYS).map((k) => JSON.stringify(k)).join(", ");
  return { n: keys.length, first: keys.length > SHOWN_KEYS ? `${first}, …` : first };
}

/** A run's identity with the settings of its spec as fields of their own (`spec.max_turns`), so that a difference names the setting. */
function identityFields(identity: RankedRun["config"]["identity"]): Record<string, unknown> {
  const { spec, ...rest } = identity as Record<string, unknown> & { spec?: Record<string, unknown> };
  return { ...rest, ...Object.fromEntries(Object.entries(spec ?? {}).map(([key, value]) => [`spec.${key}`, value])) };
}

/** How one run differs from the first: its samples, the settings it was evaluated under, and the attempts it holds. */
function differencesFrom(ref: RankedRun, run: RankedRun): string[] {
  const out: string[] = [];
  const a = identityFields(ref.config.identity);
  const b = identityFields(run.config.identity);
  const digests = ref.config.identity.samples_digest !== undefined && run.config.identity.samples_digest !== undefined;
  if (!digests) {
    for (const r of [ref, run].filter((x) => x.config.identity.samples_digest === undefined)) {
      out.push(`${r.label}: run.json records no samples digest (a run made before gitgood recorded one), so its samples cannot be checked`);
    }
  } else if (a["samples_digest"] !== b["samples_digest"]) {
    out.push(`${run.label}: its samples (${shown(b["samples_digest"])}) are not those of ${ref.label} (${shown(a["samples_digest"])})`);
  }
  const skipped = new Set([...AGENT_FIELDS, ...PLACE_FIELDS, "samples_digest", ...(digests ? SELECTION_FIELDS : [])]);
  for (const field of Object.keys({ ...a, ...b }).sort()) {
    if (skipped.has(field) || JSON.stringify(a[field]) === JSON.stringify(b[field])) continue;
    out.push(`${run.label}: ${field} is ${shown(b[field])} where ${ref.label} has ${shown(a[field])}`);
  }
  const keysA = new Set(ref.records.map((r) => r.key));
  const keysB = new Set(run.records.map((r) => r.key));
  const lacks = missing(keysA, keysB);
  if (lacks.n > 0) out.push(`${run.label}: lacks ${lacks.n} of the ${keysA.size} attempts ${ref.label} holds (${lacks.first})`);
  const extra = missing(keysB, keysA);
  if (extra.n > 0) out.push(`${run.label}: holds ${extra.n} attempt(s) ${ref.label} does not (${extra.first})`);
  return out;
}

/**
 * What keeps the runs from being ranked together, one line per difference (none: they are over the same
 * samples, evaluated under the same settings, with the same attempts recorded). Each run is set against
 * the first; the agents, their models and where the samples were read from may differ.
 */
export function sampleSetDifferences(runs: readonly RankedRun[]): string[] {
  const [ref, ...rest] = runs;
  if (!ref) return [];
  return [...new Set(rest.flatMap((run) => differencesFrom(ref, run)))];
}
