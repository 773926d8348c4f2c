import path from "node:path";
import { Command, Option } from "commander";
import type { RepoLocator } from "../dataset/clones.js";
import { samplesDigest } from "../dataset/digest.js";
import { GitGoodError } from "../errors.js";
import { serverToken } from "../mcp/token.js";
import { lookupModel } from "../model/lookup.js";
import { runConfig } from "../runs/config.js";
import { defaultRunDir, loadSelected, selectionOfSpec } from "../runs/from-flags.js";
import { modelOptionsOf } from "../runs/ticket.js";
import { HISTORY, IDS, JUDGES, LIMIT, MCR_TOOLS, familyFragments, scenarioSettings, settingsFromOptions, specValue } from "../runs/spec.js";
import { checkModels } from "../runs/preflight.js";
import { lockRunDir } from "../runs/run-lock.js";
import { RunStore } from "../runs/store.js";
import { PROTOCOLS, serveEnvironment, type Protocol, type ServeHandle } from "../serve/server.js";
import { intOption, numberOption, repeatable } from "../util/options.js";
import { familyScenarioSettings } from "../families/options.js";
import { addFamilyOptions } from "./family-options.js";
import type { CliIO } from "./io.js";
import { SERVING_SETTINGS, addModelOptions, specOption } from "./spec-options.js";

const SERVE_TOKEN_ENV = "GITGOOD_SERVE_TOKEN";
/** The agent the episodes are recorded under: the client trains or evaluates a policy gitgood does not see. */
const SERVE_AGENT = "serve";

interface ServeFlags {
  samples?: string[];
  protocol: Protocol;
  split: string;
  ids?: string[];
  limit?: number;
  repo?: string;
  repos?: string;
  out?: string;
  port: number;
  host: string;
  token?: string;
  allowOrigin?: string[];
  maxSessions: number;
  idleTimeout: number;
  timeout?: number;
  warm: number;
}

/** Resolves when the caller aborts `signal` (never without one). */
function stopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve();
    else signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}

async function runServe(files: string[], flags: ServeFlags, io: CliIO): Promise<void> {
  const log = (line: string): void => {
    io.stderr.write(`gitgood serve: ${line}\n`);
  };
  if (files.length === 0) throw new GitGoodError("BAD_OPTION", "give a samples file (positional or --samples FILE)");
  if ((flags.repo ? 1 : 0) + (flags.repos ? 1 : 0) !== 1) {
    throw new GitGoodError("BAD_OPTION", "give exactly one of --repo PATH (one repository) or --repos DIR (clones at DIR/owner/repo)");
  }
  if (flags.port > 65535) throw new GitGoodError("BAD_OPTION", `--port takes a port from 0 to 65535, not ${flags.port}`);
  if (flags.maxSessions < 1) throw new GitGoodError("BAD_OPTION", "--max-sessions takes at least 1");
  if (flags.idleTimeout < 1) throw new GitGoodError("BAD_OPTION", "--idle-timeout takes at least 1 second");
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(flags.split)) throw new GitGoodError("BAD_OPTION", "--split takes a name of letters, digits, '.', '_' and '-'");
  const door = serverToken(flags.token ?? (process.env[SERVE_TOKEN_ENV] || undefined), "serve");
  const where: RepoLocator = flags.repo ? { repo: flags.repo } : { repos: flags.repos as string };
  // The serving settings, and the families' (their options of `serve`; the others at their defaults).
  const options = flags as unknown as Record<string, unknown>;
  const spec = { ...settingsFromOptions(options, SERVING_SETTINGS), ...familyFragments(options) };
  const samples = await loadSelected(files, selectionOfSpec(spec));
  const judges = specValue(spec, JUDGES).map((m) => lookupModel(m, modelOptionsOf(spec)));
  await checkModels({ agent: [], judges }, "nothing was served");
  const out = flags.out ?? defaultRunDir(files, SERVE_AGENT);
  let handle: ServeHandle | null = null;
  const onSignal = (signal: NodeJS.Signals, code: number) => () => {
    handle?.abandonAll(`gitgood serve was stopped (${signal}) before the episode ended`);
    process.exit(code);
  };
  // Registered before the run lock registers its own removal on a signal, so that a signal records the live episodes first.
  if (io.ownsProcess) for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) process.once(signal, onSignal(signal, code));
  const unlock = lockRunDir(out);
  try {
    const config = runConfig(
      {
        samples: files,
        samplesDigest: samplesDigest(samples),
        agent: SERVE_AGENT,
        where,
        spec,
      },
      (p) => path.resolve(p),
    );
    const store = RunStore.open(out, config, { appendOnly: true });
    const settings = familyScenarioSettings(spec, "mcp", { isolation: undefined, model: undefined, envs: null });
    handle = await serveEnvironment({
      protocol: flags.protocol,
      source: { samples, where, recorder: { store, judges, agent: SERVE_AGENT, settings }, split: flags.split, history: specValue(spec, HISTORY), settings: scenarioSettings(spec, {}) },
      maxSessions: flags.maxSessions,
      idleTimeoutSeconds: flags.idleTimeout,
      timeLimitSeconds: flags.timeout,
      warm: flags.warm,
      port: flags.port,
      host: flags.host,
      token: door.token,
      allowedOrigins: flags.allowOrigin ?? [],
      log,
    });
    log(`serving ${samples.length} sample(s) as split ${flags.split} over ${flags.protocol}; episodes recorded in ${store.dir}`);
    door.announce(Number(new URL(handle.url).port), log);
    log(`listening on ${handle.url}`);
    if (io.ownsProcess) return; // it serves until a signal ends the process; the run lock is released at exit
    await stopped(io.signal);
    await handle.close();
    unlock();
  } catch (err) {
    unlock();
    throw err;
  }
}

export function serveCommand(io: CliIO): Command {
  const cmd = new Command("serve")
    .description("serve every task family as a reinforcement-learning environment over OpenEnv or the Open Reward Standard; each episode recorded in a run directory")
    .argument("[samples...]", "samples files: gitgood JSONL, or published Parquet/CSV/JSONL")
    .option("--samples <file>", "a samples file (same as the positional argument; repeatable)", repeatable)
    .addOption(new Option("--protocol <name>", "the wire protocol").choices([...PROTOCOLS]).makeOptionMandatory())
    .option("--split <name>", "the split the samples are served as (ORS lists it)", "train")
    .addOption(specOption(IDS))
    .addOption(specOption(LIMIT))
    .option("--repo <path>", "the repository every sample comes from")
    .option("--repos <dir>", "directory of clones at DIR/owner/repo")
    .option("--out <dir>", `run directory for the episodes (default: runs/<samples>-${SERVE_AGENT})`)
    .addOption(specOption(HISTORY))
    .addOption(specOption(MCR_TOOLS))
    .addOption(specOption(JUDGES))
    .option("--port <port>", "the port to listen on (0: any free port)", intOption("--port"), 0)
    .option("--host <addr>", "address to bind to; not loopback requires --token", "127.0.0.1")
    .option("--token <token>", `the token every request must carry, as Authorization: Bearer (or X-API-Key for ORS clients; or set ${SERVE_TOKEN_ENV}); without one, one is made, said once on stderr and written to serve-<port>.token in gitgood's directory of yours`)
    .option("--allow-origin <origin>", "an extra browser origin allowed to call the server (repeatable)", repeatable)
    .option("--max-sessions <n>", "episodes live at once (each holds a sandbox)", intOption("--max-sessions"), 8)
    .option("--idle-timeout <seconds>", "end an episode after this long without a request (recorded as disconnected)", intOption("--idle-timeout"), 900)
    .option("--timeout <seconds>", "an episode's wall-clock limit in seconds (fractions allowed), from the client's reset: set-up included; past it the episode ends as a recorded TIMEOUT", numberOption("--timeout", 0.001, 604_800))
    .option("--warm <n>", "sandboxes set up ahead per sample × scenario, each handed to one episode and replaced in the background (0: set up when asked)", intOption("--warm"), 0);
  return addModelOptions(addFamilyOptions(cmd, "mcp")).action(async (files: string[], flags: ServeFlags) => {
    await runServe([...files, ...(flags.samples ?? [])], flags, io);
  });
}
