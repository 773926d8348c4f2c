import { z } from "zod";
import { GitGoodError } from "../../errors.js";
import { checkRelativePath, entryKind, readProjectFile, writeProjectFile } from "../../sandbox/paths.js";
import { ToolRegistry } from "../../tools/registry.js";
import { defineTool } from "../../tools/tool.js";
import { listFilesTool, projectPathParam, viewFileTool } from "../shared/project-tools.js";
import { makeParents, searchText } from "../shared/project-files.js";
import type { SweWork } from "./types.js";

export type { SweWork } from "./types.js";

/** Bytes of a command's stdout and of its stderr shown to the agent (the end of each: where errors are). */
const COMMAND_OUTPUT_LIMIT = 10_000;

const pathParam = projectPathParam;

function refuseWhenFinished(s: SweWork): void {
  if (s.isDone()) throw new GitGoodError("NO_SCENARIO", "the task is finished; nothing can be changed any more");
}

/** The bytes of a command's output for the agent, with a note when the beginning was cut. */
function shown(name: string, bytes: Buffer, dropped: number): string {
  const text = bytes.toString("utf8");
  return dropped > 0 ? `--- ${name} (the first ${dropped} bytes are cut) ---\n${text}` : `--- ${name} ---\n${text}`;
}

export const SWE_TOOLS = new ToolRegistry<SweWork>([
  listFilesTool<SweWork>((s) => s.workspace.workDir),
  viewFileTool<SweWork>((s) => s.workspace.workDir),
  defineTool<SweWork, { text: z.ZodString; path: z.ZodOptional<z.ZodString>; ignore_case: z.ZodOptional<z.ZodBoolean> }>({
    name: "search_text",
    description:
      "Finds the lines that contain a text (literally, not a regular expression) in the files below a path of the " +
      "project (default: everywhere), as path:line: text. Binary files are skipped.",
    params: {
      text: z.string().min(1).describe("The text to look for."),
      path: z.string().optional().describe("A directory or file to search in, relative to the project root (default: the root)."),
      ignore_case: z.boolean().optional().describe("Match upper and lower case alike (default false)."),
    },
    readOnly: true,
    async run(s, args) {
      return searchText(s.workspace.workDir, args.text, args.path, args.ignore_case ?? false);
    },
  }),
  defineTool<SweWork, { path: typeof pathParam; old_text: z.ZodString; new_text: z.ZodString }>({
    name: "replace_text",
    description:
      "Replaces one exact piece of text in a file with another. old_text must occur exactly once in the file, " +
      "whitespace and line breaks included; include enough surrounding lines to make it unique.",
    params: {
      path: pathParam,
      old_text: z.string().min(1).describe("The exact text to replace; it must occur exactly once."),
      new_text: z.string().describe("The text to put in its place (may be empty to delete it)."),
    },
    readOnly: false,
    async run(s, args) {
      refuseWhenFinished(s);
      const root = s.workspace.workDir;
      const p = checkRelativePath(root, args.path);
      const kind = entryKind(root, p);
      if (kind === "link") throw new GitGoodError("SYMLINK_REFUSED", `${p.shown} is a symbolic link; the tools never write through links`, { path: p.shown });
      const text = readProjectFile(root, p).toString("utf8");
      const count = text.split(args.old_text).length - 1;
      if (count !== 1) {
        const crlf = count === 0 && text.includes("\r\n") ? " (the file uses CRLF line breaks)" : "";
        throw new GitGoodError(
          "BAD_ARGUMENTS",
          `old_text occurs ${count} times in ${p.shown}${crlf}; it must occur exactly once, so the file was not changed`,
          { path: p.shown, count },
        );
      }
      const at = text.indexOf(args.old_text);
      writeProjectFile(root, p, Buffer.from(text.slice(0, at) + args.new_text + text.slice(at + args.old_text.length), "utf8"));
      return `Replaced 1 occurrence in ${p.shown}.`;
    },
  }),
  defineTool<SweWork, { path: typeof pathParam; content: z.ZodString }>({
    name: "create_file",
    description:
      "Creates a new file with the given content (missing directories are made). An existing file is not overwritten: " +
      "change it with replace_text.",
    params: { path: pathParam, content: z.string().describe("The whole content of the new file.") },
    readOnly: false,
    async run(s, args) {
      refuseWhenFinished(s);
      const root = s.workspace.workDir;
      const p = checkRelativePath(root, args.path);
      if (entryKind(root, p) !== "missing") {
        throw new GitGoodError("BAD_ARGUMENTS", `${p.shown} exists already; change it with replace_text`, { path: p.shown });
      }
      makeParents(root, p);
      writeProjectFile(root, p, Buffer.from(args.content, "utf8"));
      return `Created ${p.shown} (${Buffer.byteLength(args.content)} bytes).`;
    },
  }),
  defineTool<SweWork, { command: z.ZodString; timeout_seconds: z.ZodOptional<z.ZodNumber> }>({
    name: "run_command",
    description:
      "Runs a shell command in the project root, isolated from the rest of the machine (no network), for example " +
      "the tests. Returns the exit code and the end of its output. The command is killed, with everything it " +
      "started, when its time runs out.",
    params: {
      command: z.string().min(1).describe("The shell command (run with sh -c)."),
      timeout_seconds: z.number().int().min(1).optional().describe("Seconds before it is killed (default and most: the run's limit)."),
    },
    readOnly: false,
    async run(s, args) {
      refuseWhenFinished(s);
      const limit = s.commandTimeoutSeconds;
      const r = await s.workspace.exec(["sh", "-c", args.command], {
        agent: true,
        timeout: Math.min(args.timeout_seconds ?? limit, limit),
        maxOutput: COMMAND_OUTPUT_LIMIT,
        keep: "tail",
      });
      const how = r.timedOut
        ? `was killed after ${Math.min(args.timeout_seconds ?? limit, limit)} s`
        : r.code !== null
          ? `exited with code ${r.code}`
          : `was killed (${r.signal ?? "signal"})`;
      return [`The command ${how}.`, shown("stdout", r.stdout, r.dropped.stdout), shown("stderr", r.stderr, r.dropped.stderr)].join("\n");
    },
  }),
  defineTool<SweWork, { answer: z.ZodOptional<z.ZodString> }>({
    name: "finish",
    description:
      "Ends the task. Your answer is the change you made in the work tree. If you changed nothing there, put your " +
      "change as a unified diff in answer (inside <patch></patch>, or in a ```diff block).",
    params: { answer: z.string().optional().describe("Optional: a summary, or your change as a diff when the work tree is unchanged.") },
    readOnly: false,
    async run(s, args) {
      refuseWhenFinished(s);
      s.finish(args.answer ?? null);
      return "The task is finished; your change will be evaluated.";
    },
  }),
]);
