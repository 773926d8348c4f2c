import { isMap, parseDocument, stringify, type Document } from "yaml";
import { GitGoodError } from "../errors.js";

/**
 * metadata.yaml: structured facts about a memory branch's workspace, as top-level segments.
 * gitgood keeps `file_structure`, `dependencies` and `env_config` (the paper's segment: the file tree's
 * top level, the dependency manifests, the platform) up to date on every COMMIT; any other segment is
 * the user's and is kept as written (comments included, since the file is edited as a YAML document).
 */

const FILE_STRUCTURE = "file_structure";
const DEPENDENCIES = "dependencies";
/** The paper's environment segment: the file tree's top level, the dependency manifests, the platform. */
const ENV_CONFIG = "env_config";
/** At most this many paths are listed under file_structure. */
const MAX_LISTED_FILES = 500;

const MANIFESTS = new Set([
  "package.json",
  "requirements.txt",
  "pyproject.toml",
  "setup.py",
  "Pipfile",
  "go.mod",
  "Cargo.toml",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "Gemfile",
  "composer.json",
  "CMakeLists.txt",
  "Makefile",
]);

const HEADER = "# Structured facts about this memory branch's workspace. Add your own top-level segments freely.\n";

interface FileFacts {
  file_count: number;
  files: string[];
  truncated: boolean;
}

/** The facts gitgood derives from the tracked files (the memory folder itself left out). */
export function factsFromFiles(tracked: readonly string[], memoryDir: string): { structure: FileFacts; manifests: string[] } {
  const files = tracked.filter((f) => f !== memoryDir && !f.startsWith(`${memoryDir}/`));
  const manifests = files.filter((f) => MANIFESTS.has(f.split("/").pop() ?? ""));
  return {
    structure: { file_count: files.length, files: files.slice(0, MAX_LISTED_FILES), truncated: files.length > MAX_LISTED_FILES },
    manifests,
  };
}

function parse(text: string, file: string): Document {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new GitGoodError("BAD_METADATA", `${file} is not valid YAML: ${doc.errors[0]?.message.split("\n")[0] ?? ""}`, { file });
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new GitGoodError("BAD_METADATA", `${file} must hold a mapping of segments at its top level`, { file });
  }
  return doc;
}

/** env_config: each top-level entry of the tree with how many files it holds, the manifests, the platform. */
function envConfig(facts: ReturnType<typeof factsFromFiles>): Record<string, unknown> {
  const tree: Record<string, number> = {};
  for (const f of facts.structure.files) {
    const top = f.includes("/") ? `${f.slice(0, f.indexOf("/"))}/` : f;
    tree[top] = (tree[top] ?? 0) + 1;
  }
  return { file_tree: tree, dependencies: facts.manifests, environment: { platform: process.platform, arch: process.arch } };
}

/** Rewrites the derived segments, keeping every other segment (and its comments) as it was. */
export function refreshMetadata(text: string | null, file: string, facts: ReturnType<typeof factsFromFiles>): string {
  if (text === null || text.trim() === "") {
    return HEADER + stringify({ [FILE_STRUCTURE]: facts.structure, [DEPENDENCIES]: { manifests: facts.manifests }, [ENV_CONFIG]: envConfig(facts) });
  }
  const doc = parse(text, file);
  if (doc.contents === null) doc.contents = doc.createNode({});
  doc.set(FILE_STRUCTURE, doc.createNode(facts.structure));
  doc.set(ENV_CONFIG, doc.createNode(envConfig(facts)));
  const deps = doc.get(DEPENDENCIES);
  if (isMap(deps)) deps.set("manifests", doc.createNode(facts.manifests));
  else doc.set(DEPENDENCIES, doc.createNode({ manifests: facts.manifests }));
  return doc.toString();
}

function segmentNames(text: string, file: string): string[] {
  const doc = parse(text, file);
  if (!isMap(doc.contents)) return [];
  return doc.contents.items.map((p) => String((p.key as { value?: unknown } | null)?.value ?? p.key));
}

/** One segment rendered as YAML, or a BAD_SEGMENT error naming the segments there are. */
export function segmentText(text: string, file: string, name: string): string {
  const doc = parse(text, file);
  if (!doc.has(name)) {
    const names = segmentNames(text, file);
    throw new GitGoodError(
      "UNKNOWN_SEGMENT",
      `metadata has no segment '${name}'; segments: ${names.length > 0 ? names.join(", ") : "(none)"}`,
      { segment: name, segments: names },
    );
  }
  return stringify({ [name]: doc.toJS()[name] as unknown });
}
