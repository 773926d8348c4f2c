import { readFileSync } from "node:fs";
import path from "node:path";
import type { ChainSample, MergeSample } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { firstParentLine, readCommit } from "../git/commits.js";
import { readBlob } from "../git/trees.js";
import type { IccScenario } from "../scenarios/icc/scenario.js";
import type { ScenarioKind } from "../scenarios/types.js";
import type { Agent, AgentSession } from "./agent.js";
import { resolutionsFor } from "./resolutions.js";

const REASON = "oracle: reproduce the recorded history";

async function expectOk(session: AgentSession, tool: string, args: Record<string, unknown>): Promise<string> {
  const r = await session.call(tool, { ...args, reason: REASON });
  if (!r.ok) throw new GitGoodError("ORACLE_FAILED", `${tool} failed: ${r.output}`);
  return r.output;
}

/**
 * Drives the real tools to the ground truth, with knowledge no real agent has: MCR, the merge commit's
 * files; IR, the original todo (pick everything, messages as they were); ICC, the original commits
 * (each hunk goes into the first original commit whose version of the file already has it).
 */
export class OracleAgent implements Agent {
  readonly name = "oracle";

  supports(_kind: ScenarioKind): boolean {
    return true;
  }

  async run(session: AgentSession): Promise<void> {
    session.beginTurn();
    if (session.kind === "mcr") return this.mcr(session);
    if (session.kind === "ir") return this.ir(session);
    return this.icc(session);
  }

  private async mcr(session: AgentSession): Promise<void> {
    const sample = session.sample as MergeSample;
    const files = (session.context.data.files as string[] | undefined) ?? [];
    const texts: string[] = [];
    for (const file of files) {
      const conflicted = readFileSync(path.join(session.workDir, file));
      const wanted = await readBlob(session.scenario.sandbox.repo, sample.scenario.merge_commit_hash, file);
      const parts = wanted ? resolutionsFor(conflicted, wanted) : null;
      if (!parts) {
        throw new GitGoodError(
          "ORACLE_FAILED",
          `the recorded ${file} changed text outside its conflict regions; no resolution of the regions reproduces it`,
        );
      }
      texts.push(...parts);
    }
    for (const content of texts) await expectOk(session, "resolve_current_merge_conflict_with", { content });
  }

  private async ir(session: AgentSession): Promise<void> {
    const commits = (session.context.data.commits as unknown[] | undefined) ?? [];
    await expectOk(session, "update_rebase_todo_list", {
      rebase_todo_list_items: commits.map((_, i) => ({ commit_index: i, command: "pick" })),
    });
    await expectOk(session, "execute_rebase", {});
  }

  private async icc(session: AgentSession): Promise<void> {
    const scenario = session.scenario as unknown as IccScenario;
    const chain = session.sample as ChainSample;
    const file = chain.scenario.file;
    const repo = session.scenario.sandbox.repo;
    const originals = await firstParentLine(repo, chain.scenario.newest_commit, chain.scenario.times_seen_consecutively);
    for (const [i, oid] of originals.entries()) {
      const { message } = await readCommit(repo, oid);
      if (i === originals.length - 1) {
        if (!session.isDone()) await expectOk(session, "commit_remaining_changes", { commit_message: message });
        return;
      }
      const version = (await readBlob(repo, oid, file))?.toString("utf8") ?? "";
      const left = await scenario.remaining();
      const chosen = left.hunks.filter((h) => h.path === file && appliedIn(h.text, version)).map((h) => h.id);
      if (chosen.length > 0) await expectOk(session, "commit_changes_in", { selected_hunks: chosen, commit_message: message });
    }
  }
}

/**
 * True when `version` already holds a hunk's change: its added lines (blank ones aside) are there, or,
 * for a hunk that only removes lines, those lines are gone.
 */
function appliedIn(hunkText: string, version: string): boolean {
  const lines = new Set(version.split("\n"));
  const added: string[] = [];
  const removed: string[] = [];
  for (const l of Buffer.from(hunkText, "latin1").toString("utf8").split("\n")) {
    if (l.startsWith("+++") || l.startsWith("---")) continue;
    if (l.startsWith("+") && l.slice(1).trim() !== "") added.push(l.slice(1));
    else if (l.startsWith("-") && l.slice(1).trim() !== "") removed.push(l.slice(1));
  }
  if (added.length > 0) return added.every((l) => lines.has(l));
  return removed.length > 0 && removed.every((l) => !lines.has(l));
}
