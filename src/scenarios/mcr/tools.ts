import { z } from "zod";
import { GitGoodError } from "../../errors.js";
import { fileDiff } from "../../git/diff.js";
import { unwrittenEntry } from "../../git/sparse.js";
import { checkRelativePath, entryKind } from "../../sandbox/paths.js";
import { ToolRegistry } from "../../tools/registry.js";
import { defineTool } from "../../tools/tool.js";
import { conflictTools } from "../shared/conflict-tools.js";
import { describeFile, showFile } from "../shared/files.js";
import type { McrHost } from "./types.js";

const pathParam = z
  .string()
  .describe(
    "Path of a file relative to the project root, with forward slashes (for example src/app/main.py), taken " +
      "literally (no wildcards or pathspec magic). A name shown in double quotes with backslash escapes (for " +
      "example \"caf\\351.py\" for bytes that are not UTF-8) is given back exactly as shown, quotes included.",
  );

const contentParam = z.string().describe("The file's whole new content, exactly as it is to be stored (UTF-8; nothing is added or folded).");

export const WRITE_FILE = "write_file_at";

/**
 * The extended tool set's one addition (`--mcr-tools extended`): write any file of the merge whole, so
 * that edits outside the conflict regions (and in files without conflicts) can be made too.
 */
const writeFileTool = defineTool<McrHost, { relative_path_from_project_root: typeof pathParam; content: typeof contentParam }>({
  name: WRITE_FILE,
  description:
    "Writes one file of the merge whole: `content` replaces the file's entire content exactly as given (a missing " +
    "file is created). Use it for changes the merge needs outside the conflict regions, in conflicted files or in " +
    "files without conflicts; every file written is committed with the merge. A file with conflicts can be written " +
    "once the conflicts before its own are resolved; writing it resolves all of its open conflicts (after the last " +
    "conflict the merge is committed, so make the other edits first). Symbolic links are never written or gone through.",
  params: { relative_path_from_project_root: pathParam, content: contentParam },
  readOnly: false,
  async run(s, args) {
    return s.writeFile(args.relative_path_from_project_root, args.content);
  },
});

export const MCR_TOOLS = new ToolRegistry<McrHost>([
  ...conflictTools<McrHost>(),
  defineTool<McrHost, { relative_path_from_project_root: typeof pathParam }>({
    name: "view_diff_for",
    description:
      "Shows a diff for one file. For a file with conflicts it is git's combined diff of the work tree against both " +
      "sides; for any other file it is what the merge changes relative to HEAD (parent 1).",
    params: { relative_path_from_project_root: pathParam },
    readOnly: true,
    async run(s, args) {
      const p = checkRelativePath(s.sandbox.workDir, args.relative_path_from_project_root);
      const conflicted = s.conflicts.files.some((f) => f.path === p.shown) && !s.isDone();
      const out = await fileDiff(s.sandbox.repo, p.bytes, conflicted ? undefined : "HEAD");
      return out === "" ? `No changes in ${p.shown}.` : out;
    },
  }),
  defineTool<McrHost, { relative_path_from_project_root: typeof pathParam }>({
    name: "view_file_at",
    description:
      "Shows the current content of one file of the project (conflict markers included while unresolved). The first " +
      "line, starting with [gitgood], is a header; line breaks are shown as LF whatever the file uses. A symbolic " +
      "link is never followed: the answer names its target instead.",
    params: { relative_path_from_project_root: pathParam },
    readOnly: true,
    async run(s, args) {
      const given = args.relative_path_from_project_root;
      const p = checkRelativePath(s.sandbox.workDir, given);
      const rel = p.shown;
      // A sandbox for tool-only agents writes only the conflicted files; the others are read from the index.
      const unwritten = entryKind(s.sandbox.workDir, p) === "missing" ? await unwrittenEntry(s.sandbox.repo, rel) : null;
      if (unwritten?.kind === "directory") throw new GitGoodError("NOT_A_FILE", `${rel} is a directory, not a file`, { path: rel });
      if (unwritten?.kind === "link") {
        const what =
          unwritten.path === rel
            ? `${rel} is a symbolic link to ${JSON.stringify(unwritten.target)}; the tools never read through links`
            : `path '${rel}' is not allowed: '${unwritten.path}' is a symbolic link, and the tools never go through links`;
        throw new GitGoodError("SYMLINK_REFUSED", what, { path: rel });
      }
      return unwritten ? describeFile(rel, unwritten.bytes) : showFile(s.sandbox, given);
    },
  }),
]);

/** Tools `--mcr-tools extended` adds to the published ones. */
export const MCR_OPTIONAL_TOOLS = new ToolRegistry<McrHost>([writeFileTool]);

/** The published tools and the extended tool (`--mcr-tools extended`). */
export const MCR_EXTENDED_TOOLS = new ToolRegistry<McrHost>([...MCR_TOOLS.tools, writeFileTool]);
