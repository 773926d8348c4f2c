import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import type { ChatMessage, ToolCall, ToolSpec } from "../model/types.js";
import { execIn } from "../sandbox/exec.js";
import { checkRelativePath, readProjectFile } from "../sandbox/paths.js";
import { resolveEnvSpec } from "./defaults.js";
import { cacheRoot, envsDir } from "./cache.js";
import { findInterpreter, type Interpreter } from "./interpreter.js";
import { addPipCommands, copyProject, envVars, prepareEnvironment, withReadPaths } from "./prepare.js";
import { envSpecYaml } from "./spec-file.js";
import type { EnvSpec, Environment, LlmSetupOptions, LlmSetupResult } from "./types.js";

/** Configuration files the model is shown at the start (the first characters of each that exists). */
const CONFIG_FILES = [
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "requirements.txt",
  "requirements-dev.txt",
  "requirements/test.txt",
  "tox.ini",
  "pytest.ini",
  "environment.yml",
  "package.json",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "Makefile",
];
const FILE_CHARS = 4000;
const OUTPUT_CHARS = 8000;

const TOOLS: ToolSpec[] = [
  {
    type: "function",
    function: {
      name: "run_command",
      description:
        "Run a shell command in the project's root (isolated; $GITGOOD_ENV is the environment's directory, a Python project's virtual environment is active). Set keep to true for a command that installs something the tests need: kept commands that succeed become the environment's set-up, replayed from scratch later.",
      parameters: {
        type: "object",
        properties: {
          command: { type: "string", description: "a shell command line" },
          keep: { type: "boolean", description: "true: part of the set-up (saved when it succeeds); false: only to look around" },
          reason: { type: "string", description: "why you run it" },
        },
        required: ["command", "keep", "reason"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "read_file",
      description: "Read a file of the project (a path relative to its root).",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, reason: { type: "string" } },
        required: ["path", "reason"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "finish",
      description: "The environment is ready: the kept commands are replayed in a fresh environment and the tests are run to check it.",
      parameters: {
        type: "object",
        properties: {
          test_command: { type: "string", description: "the command that runs the tests (test files are appended), if the proposed one does not fit" },
          reason: { type: "string" },
        },
        required: ["reason"],
        additionalProperties: false,
      },
    },
  },
];

function clip(text: string, max: number): string {
  return text.length <= max ? text : `…(${text.length - max} characters cut)…\n${text.slice(-max)}`;
}

/** The configuration files of the project, as the first message shows them. */
function configFiles(work: string): string {
  const parts: string[] = [];
  for (const rel of CONFIG_FILES) {
    try {
      const text = readProjectFile(work, checkRelativePath(work, rel)).toString("utf8");
      parts.push(`--- ${rel} ---\n${clip(text, FILE_CHARS)}`);
    } catch {
      /* not there, or not a plain file */
    }
  }
  return parts.length > 0 ? parts.join("\n\n") : "(none of the usual configuration files)";
}

function startSpec(opts: LlmSetupOptions): EnvSpec {
  if (opts.spec) return opts.spec;
  try {
    return resolveEnvSpec(opts.target, opts.sandbox.workDir, null);
  } catch {
    return { ...resolveEnvSpec(opts.target, opts.sandbox.workDir, { source: "", repos: { "*": { "*": { kind: "custom", test: "true" } } } }), test: "" };
  }
}

function parseArgs(call: ToolCall): Record<string, unknown> {
  try {
    const v = JSON.parse(call.function.arguments) as unknown;
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Sets an environment up with a model, as the AgentBeats green agent does, but checked: the model
 * reads the project's configuration files and runs commands (isolated, in a copy of the work tree,
 * only that copy and the environment writable) within `maxSteps` tool calls; the commands it keeps
 * that succeed become the spec's set-up, the environment is rebuilt from that spec alone (so the
 * saved spec is known to reproduce it), and `verify` decides whether it works. When it does not, the
 * model is told and goes on while steps remain. The spec is saved as YAML to `saveSpecTo`.
 */
export async function setupEnvironmentWithLlm(opts: LlmSetupOptions): Promise<LlmSetupResult> {
  const { sandbox, target, model } = opts;
  const log = opts.onLog ?? (() => undefined);
  const maxSteps = opts.maxSteps ?? 30;
  const base = startSpec(opts);
  const interpreter: Interpreter | null = base.kind === "python" ? await findInterpreter(base.python) : null;
  const root = envsDir(opts.cacheDir ?? cacheRoot());
  mkdirSync(root, { recursive: true });
  const work = mkdtempSync(path.join(root, ".llm-"));
  const envDir = path.join(work, "env");
  const project = path.join(work, "project");
  try {
    mkdirSync(envDir);
    copyProject(sandbox.workDir, project);
    const place = { work, isolation: withReadPaths(sandbox.isolation, interpreter?.readPaths ?? [], base.network ?? undefined) };
    const vars = envVars(base, envDir);
    if (interpreter) {
      const venv = path.join(envDir, "venv");
      await execIn(project, [interpreter.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv], { timeout: 120, env: vars, signal: opts.signal }, place);
      addPipCommands(venv);
    }
    const kept: string[] = [];
    let testCommand = base.test;
    const messages: ChatMessage[] = [
      {
        role: "system",
        content:
          "You set up the environment in which a project's test suite runs, on a machine that may be offline. Read its configuration, install what its tests need with run_command (keep: true for each command that belongs to the set-up; they are replayed in that order in a fresh environment), and call finish when the tests can run. Prefer what is installed already; do not change the project's files.",
      },
      {
        role: "user",
        content: [
          `Repository: ${target.repo}${target.version ? ` (version ${target.version})` : ""}`,
          `Kind of project: ${base.kind}`,
          `Proposed test command: ${base.test || "(none: give one to finish)"}`,
          "",
          "Configuration files:",
          configFiles(project),
        ].join("\n"),
      },
    ];
    for (let steps = 0; steps < maxSteps; ) {
      const reply = await model.complete({ messages, tools: TOOLS, temperature: 0, signal: opts.signal });
      messages.push(reply.message);
      const calls = reply.message.tool_calls ?? [];
      if (calls.length === 0) {
        steps++;
        messages.push({ role: "user", content: "Use the tools: run_command, read_file, or finish when the environment is ready." });
        continue;
      }
      for (const call of calls) {
        steps++;
        const args = parseArgs(call);
        let answer: string;
        if (call.function.name === "run_command" && typeof args.command === "string") {
          const command = args.command;
          log(`$ ${command}`);
          const r = await execIn(project, ["sh", "-c", command], { timeout: opts.commandTimeoutSeconds ?? 600, env: vars, signal: opts.signal, maxOutput: 64 * 1024, keep: "tail" }, place);
          if (r.aborted) throw new GitGoodError("ABORTED", "the environment set-up was cancelled");
          const ok = !r.timedOut && r.code === 0;
          if (ok && args.keep === true) kept.push(command);
          const output = clip(`${r.stdout.toString("utf8")}${r.stderr.toString("utf8")}`, OUTPUT_CHARS);
          answer = `${r.timedOut ? "timed out" : `exit code ${String(r.code)}`}${args.keep === true ? (ok ? " (kept)" : " (not kept: it failed)") : ""}\n${output}`;
        } else if (call.function.name === "read_file" && typeof args.path === "string") {
          try {
            answer = clip(readProjectFile(project, checkRelativePath(project, args.path)).toString("utf8"), FILE_CHARS * 4);
          } catch (err) {
            answer = `error: ${(err as Error).message}`;
          }
        } else if (call.function.name === "finish") {
          if (typeof args.test_command === "string" && args.test_command.trim() !== "") testCommand = args.test_command;
          if (testCommand.trim() === "") {
            answer = "error: give test_command: there is no test command yet";
          } else {
            const spec: EnvSpec = { ...base, setup: kept, test: testCommand };
            log(`rebuilding the environment from ${kept.length} kept command(s)`);
            let environment: Environment | null = null;
            let failure = "";
            try {
              environment = await prepareEnvironment({ sandbox, target, spec, cacheDir: opts.cacheDir, timeoutSeconds: (opts.commandTimeoutSeconds ?? 600) * Math.max(1, kept.length + 1), signal: opts.signal, onLog: opts.onLog });
            } catch (err) {
              if (!(err instanceof GitGoodError) || err.code !== "ENV_BUILD_FAILED") throw err;
              failure = err.message;
            }
            if (environment && (await opts.verify(environment))) {
              const yaml = envSpecYaml(target.repo, target.version, spec);
              if (opts.saveSpecTo) writeFileSync(opts.saveSpecTo, yaml);
              return { environment, spec, yaml, steps };
            }
            answer = environment
              ? "The environment rebuilt from your kept commands does not pass the check: the tests it needs do not run or do not pass. Keep working, then call finish again."
              : `Replaying your kept commands in a fresh environment failed: ${failure}. Fix them, then call finish again.`;
          }
        } else {
          answer = `error: unknown tool or missing arguments: ${call.function.name}`;
        }
        messages.push({ role: "tool", tool_call_id: call.id, content: answer });
      }
    }
    throw new GitGoodError("ENV_BUILD_FAILED", `the model ${model.model} did not set up a working environment for ${target.repo} within ${maxSteps} steps`, {
      repo: target.repo,
      version: target.version,
      kept,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
