import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { splitRepositoryName } from "../dataset/clones.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { releaseFamilies } from "../families/registry.js";
import { loadEnvSpecFile, parseEnvSpecs, type EnvSpec, type EnvSpecFile } from "../testenv/index.js";

/*
 * The pins file of `gitgood live build`: which repositories a release is mined from, each at one commit.
 *
 *   url_pattern: https://github.com/{name}.git   # where --clone fetches a repository without a path
 *   repositories:
 *     - name: acme/calc                          # owner/repo: the samples' name and id prefix
 *       commit: 0123…                            # the full commit id the release is mined at
 *       path: ../mirrors/calc                    # a local repository (relative to the pins file); without
 *                                                # it, the remote url_pattern names, cloned with --clone
 *       env_spec: ../envs/calc.yaml              # how its tests run (an --env-spec file, relative to the
 *                                                # pins file, or inline: what such a file holds under the
 *                                                # repository's name); with it the release holds the
 *                                                # test-judged families' tasks too
 *       types: [merge, swe]                      # the sample types mined (default: all it can have)
 */

const Commit = z.string().regex(/^[0-9a-f]{40}$|^[0-9a-f]{64}$/, "a full lower-case commit id");

/** The sample types every pin can have: those mined from its history alone. */
export const HISTORY_TYPES = ["merge", "file_commit_chain"] as const;
const isHistoryType = (t: string): boolean => (HISTORY_TYPES as readonly string[]).includes(t);

/** The sample types a release can hold, as `gitgood mine --type` names them: the history's, then the test-judged families'. */
export function pinTypes(): string[] {
  return [...HISTORY_TYPES, ...releaseFamilies().map((f) => f.type)];
}

const PinSchema = z
  .object({
    name: z.string().refine((n) => splitRepositoryName(n) !== null, "an owner/repo name"),
    commit: Commit,
    path: z.string().min(1).optional(),
    env_spec: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
    types: z.array(z.string()).min(1).optional(),
  })
  .strict();

const PinsSchema = z
  .object({
    url_pattern: z.string().min(1).optional(),
    repositories: z.array(PinSchema).min(1),
  })
  .strict();

/** One repository of a release: a local path or a remote, at a commit. */
export interface Pin {
  name: string;
  commit: string;
  /** A local repository, absolute. */
  path: string | null;
  /** The sample types mined from it, in `pinTypes()`' order. */
  types: string[];
  /** How its tests run, by version (`*`: any other): the pin's env_spec; null without one (no test-judged tasks). */
  env: Record<string, Partial<EnvSpec>> | null;
  /** Where `env` came from: the env_spec file as the pins file names it, `inline`, or null. */
  envSource: string | null;
}

/** The parsed pins file: repositories sorted by name. */
export interface Pins {
  file: string;
  /** Where --clone fetches the repositories that have no path (the queue worker's --url-pattern). */
  urlPattern: string;
  repositories: Pin[];
}

/** The URL pattern of a pins file that names none (the queue worker's default). */
const DEFAULT_PIN_URL_PATTERN = "https://github.com/{name}.git";

/** Reads and checks a pins file; a one-line BAD_PINS error for anything wrong in it. */
export function readPins(file: string): Pins {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new GitGoodError("BAD_PINS", `cannot read the pins file ${file}: ${(err as NodeJS.ErrnoException).code ?? "unreadable"}`);
  }
  let data: unknown;
  try {
    data = parse(text);
  } catch (err) {
    throw new GitGoodError("BAD_PINS", `${file} is not YAML: ${(err as Error).message.split("\n")[0] ?? ""}`);
  }
  const parsed = PinsSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.join(".") : "";
    throw new GitGoodError("BAD_PINS", `${file}: ${where ? `${where}: ` : ""}${issue?.message ?? "not a pins file"}`);
  }
  const base = path.dirname(path.resolve(file));
  const seen = new Set<string>();
  const repositories = parsed.data.repositories.map((p): Pin => {
    if (seen.has(p.name)) throw new GitGoodError("BAD_PINS", `${file}: ${p.name} is pinned twice`);
    seen.add(p.name);
    const env = pinEnvironment(file, base, p.name, p.env_spec);
    const known = pinTypes();
    const unknown = (p.types ?? []).find((t) => !known.includes(t));
    if (unknown !== undefined) throw new GitGoodError("BAD_PINS", `${file}: ${p.name}: types: '${unknown}' is not one of ${known.join(", ")}`);
    const types = known.filter((t) => (p.types ? p.types.includes(t) : isHistoryType(t) || env !== null));
    const untested = types.find((t) => !isHistoryType(t) && env === null);
    if (untested !== undefined) {
      throw new GitGoodError("BAD_PINS", `${file}: ${p.name} asks for ${untested} tasks but has no env_spec to run their tests with`);
    }
    return {
      name: p.name,
      commit: p.commit,
      path: p.path !== undefined ? path.resolve(base, p.path) : null,
      types,
      env: env?.specs ?? null,
      envSource: env?.source ?? null,
    };
  });
  repositories.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { file, urlPattern: parsed.data.url_pattern ?? DEFAULT_PIN_URL_PATTERN, repositories };
}

/**
 * A pin's environment specs by version: from its env_spec file (the repository's entry, else `*`'s), or
 * inline (what such a file holds under the repository's name: versions to specs, or one spec). A file
 * that cannot be read or a spec that is not one is a one-line BAD_PINS.
 */
function pinEnvironment(file: string, base: string, name: string, given: string | Record<string, unknown> | undefined): { specs: Record<string, Partial<EnvSpec>>; source: string } | null {
  if (given === undefined) return null;
  let specs: EnvSpecFile;
  const source = typeof given === "string" ? given : "inline";
  try {
    specs = typeof given === "string" ? loadEnvSpecFile(path.resolve(base, given)) : parseEnvSpecs({ [name]: given }, `${file} ${name}.env_spec`);
  } catch (err) {
    throw new GitGoodError("BAD_PINS", `${file}: ${name}.env_spec: ${toGitGoodError(err).message}`);
  }
  const own = specs.repos[name] ?? specs.repos["*"];
  if (own === undefined) throw new GitGoodError("BAD_PINS", `${file}: ${name}.env_spec ${source} has no spec for ${name} (nor for '*')`);
  return { specs: own, source };
}

/** The environment specs of the pins that have one, as test-judged families read them (`--env-spec`). */
export function pinsEnvSpecs(pins: Pins): EnvSpecFile {
  const repos: EnvSpecFile["repos"] = {};
  for (const p of pins.repositories) if (p.env !== null) repos[p.name] = p.env;
  return { source: pins.file, repos };
}
