import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Command, Option } from "commander";
import { dataRoots } from "../a2a/data-roots.js";
import { GreenExecutor } from "../a2a/green.js";
import { ParticipantExecutor, DEFAULT_PARTICIPANT_TURNS } from "../a2a/participant.js";
import { agentCard, serveA2a, type A2aHandle } from "../a2a/server.js";
import { DEFAULT_IDLE_SECONDS, DEFAULT_POLL_SECONDS } from "../agents/a2a-client.js";
import { PARTICIPANT_TOKEN_ENV, SHARED_DIR_ENV } from "../agents/a2a.js";
import { GitGoodError } from "../errors.js";
import { families } from "../families/registry.js";
import { isLoopbackHost, type AccessPolicy } from "../mcp/guard.js";
import { requireTokenBeyondLoopback } from "../mcp/http.js";
import { serverToken } from "../mcp/token.js";
import { McpToolHost } from "../mcp/tool-host.js";
import { lookupModel } from "../model/lookup.js";
import { isolationLimits, specFromOptions } from "../runs/spec.js";
import { addSpecOptions } from "./spec-options.js";
import { DEFAULT_ISOLATION, isolationModes, chooseIsolation, isolationHelp, isolationNote, type IsolationMode } from "../sandbox/isolation.js";
import { intOption, numberOption, positiveIntOption, type CliIO } from "./io.js";

interface ServeFlags {
  host: string;
  port: number;
  cardUrl?: string;
  out: string;
  sharedDir?: string;
  idleTimeout: number;
  poll: number;
  data?: string[];
  token?: string;
  participantToken?: string;
  maxAssessments?: number;
  isolation: IsolationMode;
}

/** The programs evaluations need on PATH, each with what is lost without it (said at start, never dropped silently). */
const EVALUATION_TOOLS: ReadonlyArray<[string, string]> = [
  ["git", "every evaluation"],
  ["patch", "the fourth SWE apply strategy (patch -p1 --fuzz=3)"],
];

function onPath(name: string): boolean {
  return (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir !== "" && existsSync(path.join(dir, name)));
}

/** The environment variable that gives `a2a serve` and `a2a agent` their bearer token. */
const A2A_TOKEN_ENV = "GITGOOD_A2A_TOKEN";

interface AgentFlags {
  model: string;
  host: string;
  port: number;
  cardUrl?: string;
  token?: string;
  maxTurns: number;
  isolation: IsolationMode;
  sharedDir?: string;
  maxRepoMb: number;
}

function checkPort(port: number): void {
  if (port > 65535) throw new GitGoodError("BAD_OPTION", `--port takes a port from 0 to 65535, not ${port}`);
}

function checkCardUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(u.protocol);
  } catch {
    throw new GitGoodError("BAD_OPTION", `--card-url must be an http(s) URL, not ${url}`);
  }
  return url.replace(/\/+$/, "");
}

/** Serves until the caller aborts `io.signal` (in-process), or until a signal ends the process. */
async function serveUntilStopped(handle: A2aHandle, io: CliIO): Promise<void> {
  if (io.ownsProcess) {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        void handle.close().finally(() => process.exit(0));
      });
    }
    return;
  }
  await new Promise<void>((resolve) => {
    if (io.signal?.aborted) resolve();
    else io.signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  await handle.close();
}

/** The host names a request's Host header may carry besides loopback ones: the card URL's, and the address bound to unless it is a wildcard. */
function allowedHosts(bind: string, cardUrl: string | undefined): string[] {
  const hosts = cardUrl ? [new URL(cardUrl).hostname.replace(/^\[|\]$/g, "")] : [];
  if (bind !== "0.0.0.0" && bind !== "::" && bind !== "") hosts.push(bind);
  return [...new Set(hosts)];
}

/**
 * The door of an A2A server, `gitgood mcp --http`'s: a bearer token on every request but the card's (the one
 * given, else a fresh one, said once it listens), and a Host header naming a loopback host, the card URL's
 * host or the bound address. Beyond loopback only with a token given.
 */
function door(flags: { host: string; token?: string }, cardUrl: string | undefined): { access: AccessPolicy; announce: (port: number, log: (line: string) => void) => string | null } {
  const given = flags.token ?? (process.env[A2A_TOKEN_ENV] || undefined);
  requireTokenBeyondLoopback(flags.host, given, `--token (or ${A2A_TOKEN_ENV})`);
  const { token, announce } = serverToken(given, "a2a");
  return { access: { token, allowedOrigins: [], loopback: isLoopbackHost(flags.host), allowedHosts: allowedHosts(flags.host, cardUrl) }, announce };
}

async function runServe(flags: ServeFlags, io: CliIO): Promise<void> {
  checkPort(flags.port);
  let cardUrl = checkCardUrl(flags.cardUrl);
  const log = (line: string): void => {
    io.stderr.write(`gitgood a2a: ${line}\n`);
  };
  const { access, announce } = door(flags, cardUrl);
  const roots = dataRoots(flags.data ?? []);
  const spec = specFromOptions(flags as unknown as Record<string, unknown>);
  const isolation = chooseIsolation({ mode: flags.isolation, ...isolationLimits(spec, null) });
  const note = isolationNote(isolation);
  if (note) log(note);
  for (const [tool, what] of EVALUATION_TOOLS) if (!onPath(tool)) log(`warning: ${tool} is not on PATH: ${what} is missing`);
  if (roots.length === 0) log("no --data directory: every assessment will be refused until the server is started with --data DIR");
  const toolHost = new McpToolHost(isLoopbackHost(flags.host), log);
  const executor = new GreenExecutor({
    outDir: flags.out,
    toolHost,
    sharedDir: flags.sharedDir ?? (process.env[SHARED_DIR_ENV] || undefined),
    ...(flags.participantToken !== undefined ? { participantToken: flags.participantToken } : {}),
    idleSeconds: flags.idleTimeout,
    pollSeconds: flags.poll,
    dataRoots: roots,
    isolation,
    spec,
    maxAssessments: flags.maxAssessments ?? os.availableParallelism(),
    log,
  });
  const card = agentCard({
    name: "gitgood green agent",
    description:
      "Assesses an A2A agent on SWE-style tasks and the GitGoodBench scenarios (MCR, IR, ICC). Send one message whose text is " +
      '{"participants": {"<role>": "<A2A URL>"}, "config": {"dataset": ..., "repos": ..., "scenarios": [...]}}; the answer is an artifact named Result.',
    url: cardUrl ?? "http://placeholder.invalid",
    bearer: true,
    skills: [
      {
        id: "assess",
        name: "Assess an agent",
        description: "Runs SWE-style and GitGoodBench tasks against the participant and reports the results (AgentBeats EvalResult for SWE).",
        tags: ["benchmark", "git", "swe", "evaluation"],
      },
    ],
  });
  const handle = await serveA2a({ host: flags.host, port: flags.port, card, executor, toolHost, access });
  announce(Number(new URL(handle.url).port), log);
  cardUrl ??= handle.url;
  // Participants reach the per-task MCP servers where clients reach the agent.
  toolHost.baseUrl = cardUrl;
  card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: `${cardUrl}/` }));
  log(`green agent at ${cardUrl}/ (card ${cardUrl}/.well-known/agent-card.json); run directories in ${path.resolve(flags.out)}`);
  log(`listening on ${handle.url}`);
  await serveUntilStopped(handle, io);
}

async function runAgent(flags: AgentFlags, io: CliIO): Promise<void> {
  checkPort(flags.port);
  let cardUrl = checkCardUrl(flags.cardUrl);
  const log = (line: string): void => {
    io.stderr.write(`gitgood a2a agent: ${line}\n`);
  };
  const shared = flags.sharedDir ?? (process.env[SHARED_DIR_ENV] || undefined);
  if (shared === undefined) throw new GitGoodError("BAD_OPTION", `give --shared-dir DIR (or $${SHARED_DIR_ENV}): the directory the green agent puts SWE tasks' REPO_DIR in`);
  const [sharedDir] = dataRoots([shared], "--shared-dir");
  const { access, announce } = door(flags, cardUrl);
  const model = lookupModel(flags.model);
  const isolation = chooseIsolation({ mode: flags.isolation });
  const note = isolationNote(isolation);
  if (note) log(`SWE tasks' commands: ${note}`);
  const card = agentCard({
    name: `gitgood llm agent (${model.model})`,
    description:
      "gitgood's llm agent as an A2A participant: works a SWE task (REPO_DIR:<path>, Problem Statement:, Hints:) in REPO_DIR with the SWE tools and answers <patch>…</patch>, " +
      "or a GitGoodBench task through the MCP server its message names.",
    url: cardUrl ?? "http://placeholder.invalid",
    bearer: true,
    skills: [
      ...families().flatMap((f) => (f.participantTask ? [f.participantTask.skill] : [])),
      { id: "git-task", name: "Git task", description: "Resolves a merge conflict, cleans up a chain of commits, or commits changes in steps.", tags: ["git"] },
    ],
  });
  const executor = new ParticipantExecutor({ model, maxTurns: flags.maxTurns, isolation, sharedDir, maxRepoBytes: flags.maxRepoMb * 1024 * 1024, log });
  const handle = await serveA2a({ host: flags.host, port: flags.port, card, executor, access });
  announce(Number(new URL(handle.url).port), log);
  cardUrl ??= handle.url;
  card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: `${cardUrl}/` }));
  log(`participant at ${cardUrl}/ with model ${model.model}`);
  log(`listening on ${handle.url}`);
  await serveUntilStopped(handle, io);
}

export function a2aCommand(io: CliIO): Command {
  const cmd = new Command("a2a").description("A2A (AgentBeats): gitgood as a green (evaluator) agent, or its llm agent as a participant");
  const serve = cmd
    .command("serve")
    .description("serve the green agent: assessments of any A2A agent on SWE-style and GitGoodBench tasks")
    .option("--host <addr>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port to listen on (0: any free port)", intOption("--port"), 9009)
    .option("--card-url <url>", "the URL clients and participants reach this agent at (default: the address it listens on)")
    .option("--out <dir>", "where each assessment's run directory is made (named after its task id)", path.join("runs", "a2a"))
    .option("--shared-dir <dir>", `where SWE tasks' REPO_DIR copies are made, a directory participants can reach (or $${SHARED_DIR_ENV})`)
    .option("--idle-timeout <seconds>", "silence on a participant's stream after which its task is polled with tasks/get", numberOption("--idle-timeout", 0.01, 86_400), DEFAULT_IDLE_SECONDS)
    .option("--poll <seconds>", "interval of tasks/get polls", numberOption("--poll", 0.01, 3600), DEFAULT_POLL_SECONDS)
    .option("--data <dir>", "a directory requests may name datasets and repositories in (repeatable; paths elsewhere are refused)", (v: string, prev: string[] = []) => [...prev, v])
    .option("--token <token>", `bearer token every request but the agent card's must carry (or set ${A2A_TOKEN_ENV}); without one, one is made, said once on stderr and written to a2a-<port>.token in gitgood's directory of yours; required when --host is not loopback`)
    .option("--participant-token <token>", `bearer token sent to the participant a request names, to its URL's origin only (or set ${PARTICIPANT_TOKEN_ENV})`)
    .option("--max-assessments <n>", "assessments at once; one more is refused as busy (default: the machine's cores)", positiveIntOption("--max-assessments"))
    .addOption(
      new Option("--isolation <mode>", `how evaluations' programs (test runs) are isolated, refused where it cannot run: ${isolationHelp()}`)
        .choices(isolationModes())
        .default(DEFAULT_ISOLATION),
    );
  // The run settings (the jail's limits): the most an assessment request may ask for.
  addSpecOptions(serve, "limit").action(async (flags: ServeFlags) => {
    await runServe(flags, io);
  });
  cmd
    .command("agent")
    .description("serve gitgood's llm agent as an A2A participant (purple agent)")
    .requiredOption("--model <name>", "the model (OPENAI_BASE_URL and OPENAI_API_KEY select the endpoint)")
    .option("--host <addr>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port to listen on (0: any free port)", intOption("--port"), 9019)
    .option("--card-url <url>", "the URL clients reach this agent at (default: the address it listens on)")
    .option("--token <token>", `bearer token every request but the agent card's must carry (or set ${A2A_TOKEN_ENV}); without one, one is made, said once on stderr and written to a2a-<port>.token in gitgood's directory of yours; required when --host is not loopback`)
    .option("--max-turns <n>", "model turns per task", positiveIntOption("--max-turns"), DEFAULT_PARTICIPANT_TURNS)
    .addOption(
      new Option("--isolation <mode>", `how a SWE task's commands (run_command in REPO_DIR) are isolated, refused where it cannot run: ${isolationHelp()}`)
        .choices(isolationModes())
        .default(DEFAULT_ISOLATION),
    )
    .option("--shared-dir <dir>", `the directory SWE tasks' REPO_DIR must lie in, shared with the green agent (or $${SHARED_DIR_ENV})`)
    .option("--max-repo-mb <n>", "largest REPO_DIR (its files, in MB) a SWE task may name", positiveIntOption("--max-repo-mb"), 1024)
    .action(async (flags: AgentFlags) => {
      await runAgent(flags, io);
    });
  return cmd;
}
