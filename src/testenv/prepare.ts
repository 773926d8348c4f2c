import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { execIn, type ExecResult } from "../sandbox/exec.js";
import type { Isolation } from "../sandbox/isolation.js";
import { readRegularFile } from "../util/files.js";
import { cacheRoot, envKey, envsDir, takeBuildLock } from "./cache.js";
import { findInterpreter, type Interpreter } from "./interpreter.js";
import { parsePluginScan, pluginScanArgv } from "./pytest-plugins.js";
import type { EnvSpec, EnvTarget, Environment, PrepareOptions } from "./types.js";

/** 2: the record lists the pytest plugins the environment asks for (environments of 1 are built again). */
export const ENV_SCHEMA_VERSION = 2;
/** The record a finished cache entry holds; an entry without it is not finished. */
const RECORD = "environment.json";
/** `$GITGOOD_ENV` inside an entry. */
const ENV = "env";
const PROJECT = "project";
/**
 * An editable install without build isolation (an offline machine cannot fetch build dependencies);
 * where pip cannot build it (setuptools without `wheel`, say), setuptools' own `develop`.
 */
const EDITABLE = "python -m pip install --no-build-isolation --no-deps -e . || { test -f setup.py && python setup.py develop --no-deps; }";
/** Bytes of a set-up command's output kept (its end: where the error is). */
const SETUP_OUTPUT = 256 * 1024;

interface EnvRecord {
  schema_version: number;
  key: string;
  target: EnvTarget;
  spec: EnvSpec;
  interpreter: { executable: string; version: string; read_paths: string[] } | null;
  built_at: string;
  setup_seconds: number;
  /** Entry-point names of the pytest plugins test runs load (src/testenv/pytest-plugins.ts). */
  pytest_plugins: string[];
}

/** `$GITGOOD_ENV`, `$GITGOOD_JUNIT`, `$GITGOOD_RESULTS` (and `${…}`) in a spec's variable values, replaced by their values. */
export function expandVars(value: string, vars: Readonly<Record<string, string>>): string {
  return value.replace(/\$(?:\{(GITGOOD_[A-Z_]+)\}|(GITGOOD_[A-Z_]+))/g, (m, a: string | undefined, b: string | undefined) => vars[(a ?? b) as string] ?? m);
}

/** The isolation of `base` with more read-only paths (and, for set-up, the network the spec asks for). */
export function withReadPaths(base: Isolation, readPaths: readonly string[], network?: boolean): Isolation {
  return { ...base, allowRead: [...new Set([...base.allowRead, ...readPaths])], network: network ?? base.network };
}

/** The variables a program in the environment gets: its programs first on PATH, the spec's own. */
export function envVars(spec: EnvSpec, envDir: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const vars: Record<string, string> = { GITGOOD_ENV: envDir, ...extra };
  const out: Record<string, string> = { ...vars, PIP_DISABLE_PIP_VERSION_CHECK: "1", PIP_NO_INPUT: "1" };
  if (spec.kind === "python") {
    const venv = path.join(envDir, "venv");
    out.VIRTUAL_ENV = venv;
    out.PATH = `${path.join(venv, "bin")}${path.delimiter}${process.env.PATH ?? ""}`;
  }
  for (const [k, v] of Object.entries(spec.env)) out[k] = expandVars(v, vars);
  return out;
}

function tail(text: string, lines = 20): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/**
 * Output that says a program could not reach the network (npm's, pip's, git's, curl's words for it), or
 * that pip found no package to install, which without the network means no index was reachable.
 */
const NETWORK_TROUBLE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|getaddrinfo|Could not resolve host|Temporary failure in name resolution|Failed to establish a new connection|Network is unreachable|network connectivity|No matching distribution found|Could not find a version that satisfies/i;

/**
 * What a failed set-up step's message keeps of its output, on one line: the lines that name an error
 * (npm's `ERR!`, `error`, `ERROR:`), else the last lines, at most 20 either way, joined with " | "; and,
 * when the step ran without the network and its output looks like a network failure, a hint that the
 * environment spec may need `network: true`.
 */
function failureDetail(tailText: string, network: boolean): string {
  const lines = tailText
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const errors = lines.filter((l) => /ERR!|error/i.test(l));
  const kept = (errors.length > 0 ? errors : lines).slice(-20).filter((l, i, all) => i === 0 || l !== all[i - 1]);
  const hint = !network && NETWORK_TROUBLE.test(tailText) ? " (hint: the set-up ran without the network; no package index was reachable: give the spec's env a local index (PIP_INDEX_URL or PIP_FIND_LINKS), or set `network: true` for this repository in --env-spec)" : "";
  return `${kept.join(" | ")}${hint}`;
}

function readRecord(dir: string, key: string): EnvRecord | null {
  const text = readRegularFile(path.join(dir, RECORD));
  if (text === null) return null;
  try {
    const r = JSON.parse(text) as EnvRecord;
    return r.schema_version === ENV_SCHEMA_VERSION && r.key === key && Array.isArray(r.pytest_plugins) && r.pytest_plugins.every((n) => typeof n === "string") ? r : null;
  } catch {
    return null;
  }
}

/** A copy of the work tree for the build: everything but `.git` and a `node_modules`, links copied as links, nothing but files, directories and links. */
export function copyProject(from: string, to: string): void {
  cpSync(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => {
      const rel = path.relative(from, src);
      if (rel === ".git" || rel === "node_modules") return false;
      const st = lstatSync(src);
      return st.isFile() || st.isDirectory() || st.isSymbolicLink();
    },
  });
}

/**
 * Makes a virtual environment made `--without-pip` answer to `pip` and `pip3` (the system's pip, run
 * by the environment's python, installs into the environment): without them a set-up's `pip install`
 * would reach the system's pip.
 */
export function addPipCommands(venv: string): void {
  for (const name of ["pip", "pip3"]) {
    const file = path.join(venv, "bin", name);
    if (!existsSync(file)) writeFileSync(file, '#!/bin/sh\nexec "$(dirname "$0")/python" -m pip "$@"\n', { mode: 0o755 });
  }
}

/** Points a virtual environment's scripts (their `#!` lines, activate) at the entry's final place after the rename. */
function relocateVenv(venv: string, from: string, to: string): void {
  const bin = path.join(venv, "bin");
  if (!existsSync(bin)) return;
  for (const name of readdirSync(bin)) {
    const file = path.join(bin, name);
    const st = lstatSync(file);
    if (!st.isFile() || st.size > 1 << 20) continue;
    const text = readFileSync(file);
    if (!text.includes(from)) continue;
    writeFileSync(file, text.toString("latin1").split(from).join(to), { encoding: "latin1", mode: st.mode });
  }
}

/** Removes what killed builds of `key` left (the lock for `key` is held). */
function sweepBuilds(dir: string, key: string): void {
  for (const name of readdirSync(dir)) {
    if (name.startsWith(`.build-${key}-`)) rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

function environmentOf(dir: string, record: EnvRecord, interpreter: Interpreter | null, reused: boolean): Environment {
  const envDir = path.join(dir, ENV);
  const { key, spec, target } = record;
  return {
    key,
    spec,
    target,
    dir,
    envDir,
    readPaths: [dir, ...(interpreter?.readPaths ?? [])],
    vars: envVars(spec, envDir),
    pytestPlugins: record.pytest_plugins,
    reused,
  };
}

/**
 * The environment for `target` and `spec`, from the cache when it was built before, else built now:
 * in a temporary directory of the cache (a Python virtual environment that sees the system's
 * site-packages, then the spec's set-up commands in a copy of the sandbox's work tree, run isolated
 * with only that directory writable), renamed into place when everything succeeded. A lock keeps two
 * processes from building the same environment; the second waits and reuses the first's. A failed
 * command is ENV_BUILD_FAILED with the end of its output.
 */
export async function prepareEnvironment(opts: PrepareOptions): Promise<Environment> {
  const { target, spec } = opts;
  const log = opts.onLog ?? (() => undefined);
  const interpreter = spec.kind === "python" ? await findInterpreter(spec.python) : null;
  const key = envKey(target, spec, interpreter ? `${interpreter.executable} ${interpreter.version}` : null);
  const root = envsDir(opts.cacheDir ?? cacheRoot());
  const dir = path.join(root, key);
  const cached = readRecord(dir, key);
  if (cached) return environmentOf(dir, { ...cached, spec, target }, interpreter, true);

  mkdirSync(root, { recursive: true });
  const seconds = spec.setupTimeout ?? opts.timeoutSeconds;
  const release = await takeBuildLock(path.join(root, `${key}.lock`), seconds, opts.signal);
  try {
    const built = readRecord(dir, key);
    if (built) return environmentOf(dir, { ...built, spec, target }, interpreter, true);
    sweepBuilds(root, key);
    rmSync(dir, { recursive: true, force: true });
    const build = mkdtempSync(path.join(root, `.build-${key}-`));
    let record: EnvRecord;
    try {
      const started = Date.now();
      const plugins = await buildIn(build, { ...opts, interpreter, deadline: started + seconds * 1000, log });
      if (spec.kind === "python") relocateVenv(path.join(build, ENV, "venv"), build, dir);
      record = {
        schema_version: ENV_SCHEMA_VERSION,
        key,
        target,
        spec,
        interpreter: interpreter ? { executable: interpreter.executable, version: interpreter.version, read_paths: interpreter.readPaths } : null,
        built_at: new Date().toISOString(),
        setup_seconds: Math.round((Date.now() - started) / 100) / 10,
        pytest_plugins: plugins,
      };
      writeFileSync(path.join(build, RECORD), `${JSON.stringify(record, null, 2)}\n`);
      renameSync(build, dir);
      log(`environment ${key} built in ${record.setup_seconds}s`);
    } catch (err) {
      rmSync(build, { recursive: true, force: true });
      throw err;
    }
    return environmentOf(dir, record, interpreter, false);
  } finally {
    release();
  }
}

interface BuildContext extends PrepareOptions {
  interpreter: Interpreter | null;
  deadline: number;
  log: (line: string) => void;
}

/** Runs one build step isolated in `build` (its only writable directory); a failure is ENV_BUILD_FAILED. */
async function step(ctx: BuildContext, build: string, cwd: string, argv: string[], what: string): Promise<ExecResult> {
  const left = Math.max(1, Math.round((ctx.deadline - Date.now()) / 1000));
  const envDir = path.join(build, ENV);
  const iso = withReadPaths(ctx.sandbox.isolation, ctx.interpreter?.readPaths ?? [], ctx.spec.network ?? undefined);
  ctx.log(`$ ${what}`);
  const r = await execIn(
    cwd,
    argv,
    { timeout: left, env: envVars(ctx.spec, envDir), signal: ctx.signal, maxOutput: SETUP_OUTPUT, keep: "tail" },
    { work: build, isolation: iso },
  );
  const output = `${r.stdout.toString("utf8")}${r.stderr.toString("utf8")}`;
  for (const line of output.split("\n")) if (line.trim() !== "") ctx.log(line);
  if (r.aborted) throw new GitGoodError("ABORTED", `environment set-up for ${ctx.target.repo} was cancelled during: ${what}`);
  if (r.timedOut || r.code !== 0) {
    const why = r.timedOut ? `ran out of the set-up time (${ctx.spec.setupTimeout ?? ctx.timeoutSeconds}s)` : `exited with ${r.code === null ? `signal ${String(r.signal)}` : `code ${r.code}`}`;
    const end = tail(output);
    const detail = failureDetail(end, iso.network);
    throw new GitGoodError("ENV_BUILD_FAILED", `environment set-up for ${ctx.target.repo}: '${what}' ${why}${detail ? `: ${detail}` : ""}`, {
      repo: ctx.target.repo,
      version: ctx.target.version,
      command: what,
      exit_code: r.code,
      timed_out: r.timedOut,
      log_tail: end,
    });
  }
  return r;
}

/** Builds the environment in `build`; the pytest plugins it asks for (none for a project that is not Python). */
async function buildIn(build: string, ctx: BuildContext): Promise<string[]> {
  const { spec, sandbox } = ctx;
  const envDir = path.join(build, ENV);
  const project = path.join(build, PROJECT);
  mkdirSync(envDir);
  copyProject(sandbox.workDir, project);
  if (spec.kind === "python" && ctx.interpreter) {
    const venv = path.join(envDir, "venv");
    await step(ctx, build, project, [ctx.interpreter.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv], "python -m venv --system-site-packages");
    addPipCommands(venv);
  }
  const commands = [...spec.setup, ...(spec.kind === "python" && spec.editable ? [EDITABLE] : [])];
  for (const command of commands) await step(ctx, build, project, ["sh", "-c", command], command);
  const plugins = spec.kind === "python" && ctx.interpreter ? parsePluginScan((await step(ctx, build, project, pluginScanArgv(commands), "(list the pytest plugins the environment asks for)")).stdout.toString("utf8")) : [];
  if (spec.kind === "node" && existsSync(path.join(project, "node_modules"))) {
    renameSync(path.join(project, "node_modules"), path.join(envDir, "node_modules"));
  }
  rmSync(project, { recursive: true, force: true });
  return plugins;
}
