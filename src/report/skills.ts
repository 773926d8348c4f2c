import type { ResultRecord } from "../runs/record.js";

/*
 * Skill profiles: per agent, how often each Git skill held across the families that exercise it, read from
 * the records' scores and failure labels (no model). An attempt counts toward a skill only when its outcome
 * says something about that skill.
 */

/** The skills, with what counts as the skill held in an attempt that exercises it. */
export const SKILLS = {
  resolve_conflict: "MCR attempts whose merge matches the recorded one",
  keep_tree: "finished IR/ICC histories whose final tree is the original tip's",
  split_changes: "ICC attempts that left nothing uncommitted and made no empty commit",
  write_messages: "finished IR/ICC histories with no empty and no duplicated commit message",
} as const;
/** A Git skill: a key of `SKILLS`. */
export type Skill = keyof typeof SKILLS;

/** An agent's record on one Git skill: the attempts that exercised it, and how many held it. */
export interface SkillRow {
  agent: string;
  skill: Skill;
  /** Attempts that exercised the skill. */
  attempts: number;
  held: number;
  /** held / attempts (null when no attempt exercised it). */
  rate: number | null;
}

type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const checksOf = (r: ResultRecord): Obj | null => (isObj(r.scores["checks"]) ? r.scores["checks"] : null);

/** Whether an attempt held the skill: true, false, or null when it does not exercise it. */
function held(r: ResultRecord, skill: Skill): boolean | null {
  if (r.status !== "success") return null;
  const checks = checksOf(r);
  switch (skill) {
    case "resolve_conflict":
      return r.scenario === "MCR" && isObj(r.scores["exact_match"]) ? r.scores["exact_match"]["solved"] === true : null;
    case "keep_tree":
      return checks && checks["finished"] === true ? checks["tree_matches_tip"] === true : null;
    case "split_changes":
      return r.scenario === "ICC" && checks ? checks["finished"] === true && checks["empty_commits"] === 0 : null;
    case "write_messages":
      return checks && checks["finished"] === true ? checks["empty_messages"] === 0 && checks["duplicate_messages"] === 0 : null;
  }
}

/** Every agent's rate per skill, agents in name order, skills in SKILLS order; skills no attempt exercised are left out. */
export function skillProfiles(records: readonly ResultRecord[]): SkillRow[] {
  const agents = [...new Set(records.map((r) => r.agent))].sort();
  const rows: SkillRow[] = [];
  for (const agent of agents) {
    const mine = records.filter((r) => r.agent === agent);
    for (const skill of Object.keys(SKILLS) as Skill[]) {
      const outcomes = mine.map((r) => held(r, skill)).filter((h): h is boolean => h !== null);
      if (outcomes.length === 0) continue;
      const yes = outcomes.filter(Boolean).length;
      rows.push({ agent, skill, attempts: outcomes.length, held: yes, rate: yes / outcomes.length });
    }
  }
  return rows;
}

/** How many failed attempts of an agent carry a failure label. */
export interface LabelCount {
  agent: string;
  label: string;
  attempts: number;
}

/** How many failed attempts carry each label, per agent, most frequent first. */
export function labelCounts(records: readonly ResultRecord[]): LabelCount[] {
  const counts = new Map<string, number>();
  for (const r of records) for (const l of r.failure_labels ?? []) counts.set(JSON.stringify([r.agent, l]), (counts.get(JSON.stringify([r.agent, l])) ?? 0) + 1);
  return [...counts]
    .map(([k, attempts]) => {
      const [agent, label] = JSON.parse(k) as [string, string];
      return { agent, label, attempts };
    })
    .sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : b.attempts - a.attempts || (a.label < b.label ? -1 : 1)));
}

/** Per agent: of its audited attempts (solved or not; older records have no audit), how many probed history and how many probes they made (docs/history-probes.md). */
export function probeRates(records: readonly ResultRecord[]): { agent: string; attempts: number; probing: number; probes: number; rate: number }[] {
  const by = new Map<string, { attempts: number; probing: number; probes: number }>();
  for (const r of records) {
    if (r.history_probes === undefined) continue;
    const a = by.get(r.agent) ?? { attempts: 0, probing: 0, probes: 0 };
    a.attempts++;
    if (r.history_probes.count > 0) a.probing++;
    a.probes += r.history_probes.count;
    by.set(r.agent, a);
  }
  return [...by].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([agent, a]) => ({ agent, ...a, rate: a.probing / a.attempts }));
}

/** The skill profiles and label counts as text (empty when the records have neither). */
export function formatSkills(records: readonly ResultRecord[]): string {
  const rows = skillProfiles(records);
  const labels = labelCounts(records);
  const out: string[] = [];
  if (rows.length > 0) {
    out.push("Skills (per agent, across families):");
    for (const r of rows) out.push(`  ${r.agent}  ${r.skill.padEnd(17)} ${r.held}/${r.attempts}  ${r.rate === null ? "-" : `${(r.rate * 100).toFixed(1)}%`}`);
  }
  if (labels.length > 0) {
    out.push("Failure labels (failed attempts carrying each; docs/failure-labels.md):");
    for (const l of labels) out.push(`  ${l.agent}  ${l.label.padEnd(27)} ${l.attempts}`);
  }
  const probes = probeRates(records);
  if (probes.length > 0) {
    out.push("History probes (attempts that looked outside the task; docs/history-probes.md):");
    for (const p of probes) out.push(`  ${p.agent}  ${p.probing}/${p.attempts}  ${(p.rate * 100).toFixed(1)}%  (${p.probes} probe${p.probes === 1 ? "" : "s"})`);
  }
  return out.length > 0 ? `\n${out.join("\n")}\n` : "";
}
