import { readFileSync } from "node:fs";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { z } from "zod";
import { GitGoodError } from "../errors.js";
import { ENV_KINDS, ID_STYLES, LOG_FORMATS, TEST_ARG_STYLES, type EnvSpec, type EnvSpecFile } from "./types.js";
import { errnoCode } from "../util/errno.js";

/** A path below the work tree: relative, no `..` step. */
const RelativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/") && !p.split(/[\\/]/).includes(".."), "must be a path relative to the project root, without '..'");

const Seconds = z.number().positive();

/** One spec as YAML writes it (kebab-case keys, every key optional: the rest comes from the built-in default). */
const SpecYaml = z.strictObject({
  kind: z.enum(ENV_KINDS as [string, ...string[]]).optional(),
  python: z.string().min(1).optional(),
  setup: z.array(z.string().min(1)).optional(),
  editable: z.boolean().optional(),
  "before-tests": z.array(z.string().min(1)).optional(),
  test: z.string().min(1).optional(),
  "test-args": z.enum(TEST_ARG_STYLES as [string, ...string[]]).optional(),
  junit: z.array(RelativePath).optional(),
  ids: z.enum(ID_STYLES as [string, ...string[]]).optional(),
  log: z.enum(LOG_FORMATS as [string, ...string[]]).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a variable name"), z.union([z.string(), z.number(), z.boolean()]).transform(String)).optional(),
  "python-path": z.array(RelativePath).optional(),
  network: z.boolean().optional(),
  "setup-timeout": Seconds.optional(),
  "test-timeout": Seconds.optional(),
});
type SpecYaml = z.infer<typeof SpecYaml>;

const SPEC_KEYS = new Set(Object.keys(SpecYaml.shape));

/** YAML key → EnvSpec field. */
const FIELD: Record<keyof SpecYaml, keyof EnvSpec> = {
  kind: "kind",
  python: "python",
  setup: "setup",
  editable: "editable",
  "before-tests": "beforeTests",
  test: "test",
  "test-args": "testArgs",
  junit: "junit",
  ids: "ids",
  log: "log",
  env: "env",
  "python-path": "pythonPath",
  network: "network",
  "setup-timeout": "setupTimeout",
  "test-timeout": "testTimeout",
};

function fromYaml(y: SpecYaml): Partial<EnvSpec> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(FIELD)) {
    const v = y[key as keyof SpecYaml];
    if (v !== undefined) out[field] = v;
  }
  return out;
}

/** A spec as YAML writes it, for saving (only the fields given). */
export function specToYaml(spec: Partial<EnvSpec>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(FIELD)) {
    const v = spec[field];
    if (v !== undefined && v !== null) out[key] = v;
  }
  return out;
}

/** The YAML text of a spec file with one spec, for `target` (by repository and version). */
export function envSpecYaml(repo: string, version: string | null, spec: Partial<EnvSpec>): string {
  return stringifyYaml({ envs: { [repo]: { [version ?? "*"]: specToYaml(spec) } } });
}

function fail(source: string, where: string, why: string): never {
  throw new GitGoodError("BAD_ENV_SPEC", `${source}: ${where}${why}`, { source });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Reads the `envs:` map of a configuration file (or of an env spec file): repository (`owner/name` or
 * `*`) → version (or `*`) → spec. A repository may give a spec directly, for all its versions.
 * Malformed input is a one-line BAD_ENV_SPEC error naming `source` and the key.
 */
export function parseEnvSpecs(value: unknown, source: string): EnvSpecFile {
  if (!isObject(value)) fail(source, "", "the environments must be a map of repositories ('owner/name' or '*') to specs");
  const repos: EnvSpecFile["repos"] = {};
  for (const [repo, byVersion] of Object.entries(value)) {
    if (!isObject(byVersion)) fail(source, `${repo}: `, "must be a map of versions to specs (or one spec)");
    const direct = Object.keys(byVersion).some((k) => SPEC_KEYS.has(k));
    const versions = direct ? { "*": byVersion } : byVersion;
    repos[repo] = {};
    for (const [version, raw] of Object.entries(versions)) {
      const where = direct ? `${repo}: ` : `${repo} ${version}: `;
      const parsed = SpecYaml.safeParse(raw ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const at = issue?.path.length ? `${issue.path.join(".")}: ` : "";
        fail(source, where, `${at}${issue?.message ?? "not a spec"}`);
      }
      (repos[repo])[version] = fromYaml(parsed.data);
    }
  }
  return { source, repos };
}

/** The last reading of each spec file this process made, by path: its text and what it says. */
const readings = new Map<string, { text: string; specs: EnvSpecFile }>();

/**
 * Reads an env spec file: YAML with the `envs:` map at its top (as in the configuration file) or as the
 * whole file. The file is read every time; where its text is the one read last, the specs parsed then are
 * given again (a run asks for an instance's spec several times), and they are not to be changed.
 */
export function loadEnvSpecFile(file: string): EnvSpecFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new GitGoodError("NOT_FOUND", `--env-spec ${file}: ${errnoCode(err) === "ENOENT" ? "no such file" : (err as Error).message}`, { file });
  }
  const last = readings.get(file);
  if (last?.text === text) return last.specs;
  const specs = parseEnvSpecFile(file, text);
  readings.set(file, { text, specs });
  return specs;
}

/** What the text of the spec file `file` says (a one-line error where it is not YAML or not specs). */
function parseEnvSpecFile(file: string, text: string): EnvSpecFile {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    fail(file, "", `not YAML: ${(err as Error).message.split("\n")[0] ?? ""}`);
  }
  return parseEnvSpecs(isObject(doc) && "envs" in doc ? doc.envs : doc, file);
}

/** The user's spec for `target`: by repository then version, each falling back to `*`. */
export function userSpecFor(file: EnvSpecFile | null | undefined, repo: string, version: string | null): Partial<EnvSpec> | null {
  if (!file) return null;
  for (const r of [repo, "*"]) {
    const byVersion = file.repos[r];
    if (!byVersion) continue;
    const spec = (version !== null ? byVersion[version] : undefined) ?? byVersion["*"];
    if (spec) return spec;
  }
  return null;
}

/**
 * Of spec files in order of precedence (`--env-spec FILE`, then the configuration's `envs:`), the one
 * that decides `target`: the first with a spec for it (by repository or `*`); else the first given
 * (its name goes into the message when the project needs a spec), else null.
 */
export function specFileFor(files: readonly (EnvSpecFile | null | undefined)[], repo: string, version: string | null): EnvSpecFile | null {
  const given = files.filter((f): f is EnvSpecFile => f !== null && f !== undefined);
  return given.find((f) => userSpecFor(f, repo, version) !== null) ?? given[0] ?? null;
}
