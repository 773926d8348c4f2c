import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { GitGoodError } from "../../errors.js";
import { fileDiff } from "../../git/diff.js";
import { unwrittenEntry } from "../../git/sparse.js";
import { checkRelativePath } from "../../sandbox/paths.js";
import { ToolRegistry } from "../../tools/registry.js";
import { defineTool } from "../../tools/tool.js";
import { conflictTools } from "../shared/conflict-tools.js";
import { describeFile, showFile } from "../shared/files.js";
import type { McrScenario } from "./scenario.js";

const pathParam = z
  .string()
  .describe("Path of a file relative to the project root, with forward slashes (for example src/app/main.py).");

export const MCR_TOOLS = new ToolRegistry<McrScenario>([
  ...conflictTools<McrScenario>(),
  defineTool<McrScenario, { relative_path_from_project_root: typeof pathParam }>({
    name: "view_diff_for",
    description:
      "Shows a diff for one file. For a file with conflicts it is git's combined diff of the work tree against both " +
      "sides; for any other file it is what the merge changes relative to HEAD (parent 1).",
    params: { relative_path_from_project_root: pathParam },
    readOnly: true,
    async run(s, args) {
      const rel = checkRelativePath(s.sandbox.workDir, args.relative_path_from_project_root);
      const conflicted = s.conflicts.files.some((f) => f.path === rel) && !s.isDone();
      const out = await fileDiff(s.sandbox.repo, rel, conflicted ? undefined : "HEAD");
      return out === "" ? `No changes in ${rel}.` : out;
    },
  }),
  defineTool<McrScenario, { relative_path_from_project_root: typeof pathParam }>({
    name: "view_file_at",
    description:
      "Shows the current content of one file of the project (conflict markers included while unresolved). The first " +
      "line, starting with [gitgood], is a header; line breaks are shown as LF whatever the file uses.",
    params: { relative_path_from_project_root: pathParam },
    readOnly: true,
    async run(s, args) {
      const given = args.relative_path_from_project_root;
      const rel = checkRelativePath(s.sandbox.workDir, given);
      const full = path.join(s.sandbox.workDir, rel);
      // A sandbox for tool-only agents writes only the conflicted files; the others are read from the index.
      const unwritten = existsSync(full) ? null : await unwrittenEntry(s.sandbox.repo, rel);
      if (unwritten?.kind === "directory") throw new GitGoodError("NOT_A_FILE", `${rel} is a directory, not a file`, { path: rel });
      return unwritten ? describeFile(rel, unwritten.bytes) : showFile(s.sandbox, given);
    },
  }),
]);
