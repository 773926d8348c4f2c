import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { splitRepositoryName } from "../dataset/clones.js";
import { GitGoodError } from "../errors.js";

/*
 * The pins file of `gitgood live build`: which repositories a release is mined from, each at one commit.
 *
 *   url_pattern: https://github.com/{name}.git   # where --clone fetches a repository without a path
 *   repositories:
 *     - name: acme/calc                          # owner/repo: the samples' name and id prefix
 *       commit: 0123…                            # the full commit id the release is mined at
 *       path: ../mirrors/calc                    # a local repository (relative to the pins file); without
 *                                                # it, the remote url_pattern names, cloned with --clone
 */

const Commit = z.string().regex(/^[0-9a-f]{40}$|^[0-9a-f]{64}$/, "a full lower-case commit id");

const PinSchema = z
  .object({
    name: z.string().refine((n) => splitRepositoryName(n) !== null, "an owner/repo name"),
    commit: Commit,
    path: z.string().min(1).optional(),
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
    return { name: p.name, commit: p.commit, path: p.path !== undefined ? path.resolve(base, p.path) : null };
  });
  repositories.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { file, urlPattern: parsed.data.url_pattern ?? DEFAULT_PIN_URL_PATTERN, repositories };
}
