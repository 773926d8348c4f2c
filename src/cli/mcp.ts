import path from "node:path";
import { samplesDigest } from "../dataset/digest.js";
import type { Sample } from "../dataset/sample.js";
import { Readable, Writable } from "node:stream";
import { Command } from "commander";
import { lookupModel } from "../model/lookup.js";
import { repositoryPath, type RepoLocator } from "../dataset/clones.js";
import { GitGoodError, type ErrorCode } from "../errors.js";
import { Repo } from "../git/repo.js";
import { DEFAULT_CONTEXT_LIMIT, DEFAULT_MEMORY_DIR, MemoryWorkspace } from "../memory/index.js";
import type { Recorder } from "../mcp/attempt.js";
import { requireTokenBeyondLoopback, serveHttp, type HttpHandle } from "../mcp/http.js";
import { serveStdio } from "../mcp/stdio.js";
import { serverToken } from "../mcp/token.js";
import { Workbench, type WorkbenchSource } from "../mcp/workbench.js";
import { runConfig } from "../runs/config.js";
import { lockRunDir } from "../runs/run-lock.js";
import { checkModels } from "../runs/preflight.js";
import { RunStore } from "../runs/store.js";
import { chooseScenario, scenarioNamed } from "../scenarios/index.js";
import { intOption, repeatable } from "../util/options.js";
import type { CliIO } from "./io.js";
import { scenarioChoices } from "./run-options.js";
import { SERVING_SETTINGS, addModelOptions, specOption } from "./spec-options.js";
import { defaultRunDir, loadSamples, loadSelected, selectionOfSpec } from "../runs/from-flags.js";
import { modelOptionsOf } from "../runs/ticket.js";
import { HISTORY, IDS, JUDGES, LIMIT, MCR_TOOLS, familyFragments, scenarioSettings, settingsFromOptions, specValue, type RunSpec } from "../runs/spec.js";
import { addFamilyOptions } from "./family-options.js";
import { familyScenarioSettings } from "../families/options.js";

const MCP_TOKEN_ENV = "GITGOOD_MCP_TOKEN";
/** The agent name MCP-driven results are recorded under. */
export const MCP_AGENT = "mcp";
/** The agent a practice run records (in run.json and every record), so that its numbers never pass as an evaluation's. */
export const MCP_PRACTICE_AGENT = "mcp-practice";

interface McpFlags {
  samples?: string[];
  id?: string;
  scenario?: string;
  /** Practice: the client is told its scores and may try a scenario again (recorded as agent mcp-practice). */
  practice: boolean;
  repo?: string;
  repos?: string;
  out?: string;
  toolSocket?: string;
  memory?: string;
  memoryDir: string;
  maxChars: number;
  http?: number;
  host: string;
  token?: string;
  allowOrigin?: string[];
  idleTimeout: number;
  allTools: boolean;
}

/** Where the results go, and the lock on that run directory (held while the server serves). */
interface Recording {
  recorder: Recorder;
  unlock: () => void;
}

/**
 * Opens the run directory the results go to. The judges are asked as `run`'s are (the model options,
 * the response cache) and checked first, so a wrong endpoint, key or model name stops the server before
 * it serves; then the directory is locked, as `run` locks it, so that no run works in it meanwhile.
 */
async function recorderFor(files: string[], samples: readonly Sample[], flags: McpFlags, spec: RunSpec, where: RepoLocator): Promise<Recording> {
  const agent = flags.practice ? MCP_PRACTICE_AGENT : MCP_AGENT;
  const out = flags.out ?? defaultRunDir(files, agent);
  const models = modelOptionsOf(spec);
  const judges = specValue(spec, JUDGES).map((m) => lookupModel(m, models));
  await checkModels({ agent: [], judges }, "nothing was served");
  const unlock = lockRunDir(out);
  try {
    const config = runConfig(
      {
        samples: files,
        samplesDigest: samplesDigest(samples),
        agent,
        where,
        spec,
      },
      (p) => path.resolve(p),
    );
    // Evaluation keeps every record as first written; practice may replace one with a later attempt.
    const store = RunStore.open(out, config, { appendOnly: !flags.practice });
    return { recorder: { store, judges, agent, settings: familyScenarioSettings(spec, "mcp", { isolation: undefined, model: undefined, envs: null }) }, unlock };
  } catch (err) {
    unlock();
    throw err;
  }
}

/** Works out what to serve from the flags; fails with one line on wrong usage, before anything is served. */
async function sourceFrom(files: string[], flags: McpFlags): Promise<{ source: WorkbenchSource; what: string; unlock?: () => void }> {
  if (flags.toolSocket) {
    if (files.length > 0 || flags.id || flags.memory) {
      throw new GitGoodError("BAD_OPTION", "--tool-socket serves the attempt of a run: give no samples file, --id or --memory");
    }
    return { source: { mode: "attached", socket: flags.toolSocket }, what: `the run's scenario at ${flags.toolSocket}` };
  }
  if (files.length === 0) {
    if (flags.memory) return { source: { mode: "memory" }, what: "memory operations" };
    throw new GitGoodError("BAD_OPTION", "give a samples file (with --id for one scenario), --tool-socket PATH, or --memory PATH");
  }
  if ((flags.repo ? 1 : 0) + (flags.repos ? 1 : 0) !== 1) {
    throw new GitGoodError("BAD_OPTION", "give exactly one of --repo PATH (one repository) or --repos DIR (clones at DIR/owner/repo)");
  }
  const where: RepoLocator = flags.repo ? { repo: flags.repo } : { repos: flags.repos as string };
  const wanted = flags.scenario === undefined ? undefined : scenarioNamed(flags.scenario);
  if (flags.allTools && flags.id) throw new GitGoodError("BAD_OPTION", "--all-tools is for session mode (without --id)");
  // The serving settings, and the families' (their options of `mcp`; the others at their defaults).
  const options = flags as unknown as Record<string, unknown>;
  const given = { ...settingsFromOptions(options, SERVING_SETTINGS), ...familyFragments(options) };
  // One sample's scenario is a run over that sample alone.
  const spec: RunSpec = flags.id ? { ...given, [IDS.key]: [flags.id], [LIMIT.key]: null } : given;
  const history = specValue(spec, HISTORY);
  const settings = scenarioSettings(spec, {});
  if (flags.id) {
    const [sample] = await loadSamples(files, [flags.id]);
    if (!sample) throw new GitGoodError("BAD_OPTION", `no sample with id ${flags.id}`);
    const scenario = chooseScenario(sample, wanted);
    await Repo.open(repositoryPath(where, sample));
    const { recorder, unlock } = await recorderFor(files, [sample], flags, spec, where);
    return {
      source: { mode: "single", sample, scenario: scenario.name, where, recorder, history, settings, practice: flags.practice },
      what: `sample ${sample.id} (${scenario.name}); results in ${recorder.store.dir}`,
      unlock,
    };
  }
  if (wanted) throw new GitGoodError("BAD_OPTION", "--scenario goes with --id (in session mode the client picks the scenario)");
  const samples = await loadSelected(files, selectionOfSpec(spec));
  const { recorder, unlock } = await recorderFor(files, samples, flags, spec, where);
  return {
    source: { mode: "session", samples, where, recorder, allTools: flags.allTools, history, settings, practice: flags.practice },
    what: `${samples.length} sample(s) in session mode; results in ${recorder.store.dir}`,
    unlock,
  };
}

/** On Ctrl-C or a kill, open scenarios are recorded as errors before the process ends (synchronously). */
function onStop(abandon: (code: ErrorCode, message: string) => void): void {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    process.once(signal, () => {
      abandon("SERVER_STOPPED", `gitgood mcp was stopped (${signal}) before the client finished the scenario`);
      process.exit(code);
    });
  }
}

/** In-process: resolves when the caller aborts `signal` (never without one), as a signal ends the process. */
function stopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve();
    else signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * In-process stdio: the caller's input and output carry the messages; aborting `io.signal` records an
 * open scenario as stopped (as SIGTERM does to a process of its own) and ends the connection.
 */
async function serveCallerStdio(bench: Workbench, io: CliIO): Promise<void> {
  const input = Readable.from(io.stdin, { objectMode: false });
  const output = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      io.stdout.write(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      done();
    },
  });
  const stop = (): void => bench.abandonNow("SERVER_STOPPED", "gitgood mcp was stopped before the client finished the scenario");
  if (io.signal?.aborted) stop();
  io.signal?.addEventListener("abort", stop, { once: true });
  try {
    await serveStdio({ bench, input, output, signal: io.signal });
  } finally {
    io.signal?.removeEventListener("abort", stop);
    input.destroy();
  }
}

async function runMcp(files: string[], flags: McpFlags, io: CliIO): Promise<void> {
  const log = (line: string): void => {
    io.stderr.write(`gitgood mcp: ${line}\n`);
  };
  if (flags.http !== undefined && flags.http > 65535) throw new GitGoodError("BAD_OPTION", `--http takes a port from 0 to 65535, not ${flags.http}`);
  if (flags.idleTimeout < 1) throw new GitGoodError("BAD_OPTION", "--idle-timeout takes at least 1 second");
  const given = flags.token ?? (process.env[MCP_TOKEN_ENV] || undefined);
  if (flags.http !== undefined) requireTokenBeyondLoopback(flags.host, given);
  // Over HTTP every request carries a token, on loopback too: without one given, one is made (and said once when serving).
  const door = flags.http !== undefined ? serverToken(given, "mcp") : null;
  // Registered before the run lock registers its own removal on a signal, so that a signal records the open scenarios first.
  const stop: Stop = { abandon: null };
  if (io.ownsProcess) onStop((code, message) => stop.abandon?.(code, message));
  const { source, what, unlock } = await sourceFrom(files, flags);
  // The run directory stays locked while the server serves: released when serving ends, or when the process exits or is stopped.
  let servesOn = false;
  try {
    servesOn = await serve(source, what, door, stop, flags, io, log);
  } finally {
    if (!servesOn) unlock?.();
  }
}

/** Serves until the connection ends (stdio) or the caller stops it; true when a server of its own process goes on serving after it returns. */
/** What a signal that ends the process does first: records the open scenarios as stopped (set once something is served). */
interface Stop {
  abandon: ((code: ErrorCode, message: string) => void) | null;
}

async function serve(
  source: WorkbenchSource,
  what: string,
  door: ReturnType<typeof serverToken> | null,
  stop: Stop,
  flags: McpFlags,
  io: CliIO,
  log: (line: string) => void,
): Promise<boolean> {
  const memory = flags.memory ? await MemoryWorkspace.open(flags.memory, { memoryDir: flags.memoryDir, contextLimit: flags.maxChars }) : null;
  const served = memory ? `${what}, with memory operations on ${memory.root}` : what;
  const makeBench = () => Workbench.create({ source, memory });

  if (flags.http === undefined) {
    let bench: Workbench | null = null;
    stop.abandon = (code, message) => bench?.abandonNow(code, message);
    bench = await makeBench();
    log(`serving ${served} over stdio`);
    if (io.ownsProcess) await serveStdio({ bench });
    else await serveCallerStdio(bench, io);
    return false;
  }
  let handle: HttpHandle | null = null;
  stop.abandon = (code, message) => handle?.abandonAll(code, message);
  handle = await serveHttp({
    port: flags.http,
    host: flags.host,
    token: door?.token,
    allowedOrigins: flags.allowOrigin ?? [],
    idleTimeoutSeconds: flags.idleTimeout,
    makeBench,
    log,
  });
  log(`serving ${served}`);
  door?.announce(Number(new URL(handle.url).port), log);
  log(`listening on ${handle.url}`);
  if (io.ownsProcess) return true; // it serves until a signal ends the process
  await stopped(io.signal);
  handle.abandonAll("SERVER_STOPPED", "gitgood mcp was stopped before the client finished the scenario");
  await handle.close();
  return false;
}

export function mcpCommand(io: CliIO): Command {
  const cmd = new Command("mcp")
    .description("serve scenarios (and agent memory) to any MCP client, over stdio or Streamable HTTP; results go to a run directory")
    .argument("[samples...]", "samples files: gitgood JSONL, or published Parquet/CSV/JSONL")
    .option("--samples <file>", "a samples file (same as the positional argument; repeatable)", repeatable)
    .option("--id <id>", "serve this one sample's scenario (without it: session mode, the client picks samples)")
    .option("--scenario <name>", `with --id, for a sample that gives several: ${scenarioChoices().join(", ")}`)
    .addOption(specOption(IDS))
    .addOption(specOption(LIMIT))
    .option("--practice", "practice, not evaluation: finish_scenario tells the verdict and scores and a scenario may be started again; recorded as agent mcp-practice", false)
    .option("--all-tools", "session mode: list every scenario's tools from the start (for clients that ignore tool-list changes)", false)
    .option("--repo <path>", "the repository every sample comes from")
    .option("--repos <dir>", "directory of clones at DIR/owner/repo")
    .option("--out <dir>", `run directory for the results (default: runs/<samples>-${MCP_AGENT})`)
    .addOption(specOption(HISTORY))
    .addOption(specOption(MCR_TOOLS))
    .addOption(specOption(JUDGES))
    .option("--tool-socket <path>", "serve the attempt of a run through its tool socket (what 'run --agent mcp-command' configures)")
    .option("--memory <path>", "also serve the memory operations of the workspace at PATH (alone: a memory-only server)")
    .option("--memory-dir <name>", "memory folder inside the workspace", process.env.GITGOOD_MEMORY_DIR ?? DEFAULT_MEMORY_DIR)
    .option("--max-chars <n>", "largest memory CONTEXT answer, in characters", intOption("--max-chars"), DEFAULT_CONTEXT_LIMIT)
    .option("--http <port>", "serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (0: any free port)", intOption("--http"))
    .option("--host <addr>", "address to bind the HTTP server to; not loopback requires a token", "127.0.0.1")
    .option("--token <token>", `bearer token every HTTP request must carry (or set ${MCP_TOKEN_ENV}); without one, one is made, said once on stderr and written to mcp-<port>.token in gitgood's directory of yours`)
    .option("--allow-origin <origin>", "an extra browser origin allowed to call the HTTP server (repeatable)", repeatable)
    .option("--idle-timeout <seconds>", "close an HTTP session after this long without a request", intOption("--idle-timeout"), 3600);
  return addModelOptions(addFamilyOptions(cmd, "mcp")).action(async (files: string[], flags: McpFlags) => {
    await runMcp([...files, ...(flags.samples ?? [])], flags, io);
  });
}
