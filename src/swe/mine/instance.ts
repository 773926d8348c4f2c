import { createHash } from "node:crypto";
import { bareRepositoryFields, type SweSample } from "../../dataset/sample.js";
import { sweDifficulty } from "../dataset.js";
import { mergedMessages, rootBlobs } from "../../git/changes.js";
import { readCommit } from "../../git/commits.js";
import { patchBetween } from "../../git/diff.js";
import type { Repo } from "../../git/repo.js";
import { diffFiles } from "../../util/unified-diff.js";
import type { SweCandidate } from "./candidates.js";
import { fileRole, TEST_RULES } from "./test-files.js";

/** Where a problem statement came from: the change's own words, or a model (`model:<name>`). */
export type StatementSource = "commit" | `model:${string}`;

/** A mined instance: the SWE sample, and what mining records beside the SWE-bench fields. */
export interface MinedInstance {
  sample: SweSample;
  commit: string;
  problem_statement_source: StatementSource;
  /** The version of the prompt that wrote the statement (model statements only). */
  problem_statement_prompt?: string;
}

/** Files whose content decides how a project's environment is built; their blobs at the root make the instance's `version`. */
const MANIFESTS = [
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "requirements.txt",
  "requirements-dev.txt",
  "tox.ini",
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "settings.gradle",
  "settings.gradle.kts",
];

/**
 * The `version` of an instance: `deps-` and a hash of the dependency manifests at the root of its
 * base commit, so that environments are built once per set of dependencies and rebuilt when they change.
 */
async function dependencyVersion(repo: Repo, base: string): Promise<string> {
  const blobs = await rootBlobs(repo, base);
  const h = createHash("sha256");
  for (const name of MANIFESTS) h.update(`${name}\0${blobs.get(name) ?? "-"}\n`);
  return `deps-${h.digest("hex").slice(0, 10)}`;
}

/** `owner__repo-<commit>`, SWE-bench's shape with the commit in place of a pull-request number. */
export function instanceId(repoName: string, commit: string): string {
  const [owner, name] = repoName.split("/");
  return `${owner ?? repoName}__${name ?? repoName}-${commit.slice(0, 12)}`;
}

/** A latin1 patch text as UTF-8 text, or null when its bytes are not UTF-8. */
function asUtf8(latin1: string): string | null {
  const bytes = Buffer.from(latin1, "latin1");
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? text : null;
}

/** Splits a whole patch into its test part and the rest, by the role of each file section's path. */
export function splitPatch(patch: string, languages: readonly string[]): { patch: string; test_patch: string } {
  const code: string[] = [];
  const tests: string[] = [];
  for (const section of patch.split(/^(?=diff --git )/m)) {
    if (section === "") continue;
    const f = diffFiles(section)[0];
    const file = f?.new ?? f?.old ?? "";
    (fileRole(file, languages).role === "test" ? tests : code).push(section);
  }
  return { patch: code.join(""), test_patch: tests.join("") };
}

/** The change's own words: the commit message; for a merge, its message and then those of the commits it brought, oldest first. */
async function commitStatement(repo: Repo, c: SweCandidate, message: string): Promise<string> {
  if (!c.merge) return message;
  const branch = await mergedMessages(repo, c.base, c.commit);
  return [message, ...branch].join("\n\n");
}

/**
 * The instance a candidate gives before validation (FAIL_TO_PASS and PASS_TO_PASS still empty), or null
 * when its patch is not UTF-8 text. `environment_setup_commit` is the base commit until mining names the
 * first base of the same version.
 */
export async function draftInstance(repo: Repo, repoName: string, c: SweCandidate, languages: readonly string[]): Promise<MinedInstance | null> {
  const whole = asUtf8(await patchBetween(repo, c.base, c.commit));
  if (whole === null) return null;
  const info = await readCommit(repo, c.commit);
  const parts = splitPatch(whole, languages);
  const created = new Date(c.time * 1000).toISOString().replace(/\.000Z$/, "Z");
  const id = instanceId(repoName, c.commit);
  const language = c.languages[0];
  const sample: SweSample = {
    id,
    ...bareRepositoryFields(repoName, language ? (TEST_RULES[language]?.display ?? null) : null, null),
    difficulty: sweDifficulty(null, parts.patch),
    sample_type: "swe",
    scenario: {
      instance_id: id,
      repo: repoName,
      base_commit: c.base,
      patch: parts.patch,
      test_patch: parts.test_patch,
      problem_statement: await commitStatement(repo, c, info.message),
      hints_text: "",
      created_at: created,
      version: await dependencyVersion(repo, c.base),
      environment_setup_commit: c.base,
      FAIL_TO_PASS: [],
      PASS_TO_PASS: [],
    },
  };
  return { sample, commit: c.commit, problem_statement_source: "commit" };
}

/** The instance as a SWE-bench JSONL record (the fields in the published order, then mining's own). */
export function instanceRecord(m: MinedInstance): Record<string, unknown> {
  const sc = m.sample.scenario;
  return {
    repo: sc.repo,
    instance_id: sc.instance_id,
    base_commit: sc.base_commit,
    patch: sc.patch,
    test_patch: sc.test_patch,
    problem_statement: sc.problem_statement,
    hints_text: sc.hints_text,
    created_at: sc.created_at,
    version: sc.version,
    FAIL_TO_PASS: sc.FAIL_TO_PASS,
    PASS_TO_PASS: sc.PASS_TO_PASS,
    environment_setup_commit: sc.environment_setup_commit,
    commit: m.commit,
    problem_statement_source: m.problem_statement_source,
    ...(m.problem_statement_prompt ? { problem_statement_prompt: m.problem_statement_prompt } : {}),
  };
}
