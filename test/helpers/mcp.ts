import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll } from "vitest";
import { main } from "../../src/cli/main.js";
import { MCP_AGENT, MCP_PRACTICE_AGENT } from "../../src/cli/mcp.js";
import { loadSamples } from "../../src/runs/from-flags.js";
import { sampleToJson, type ChainSample, type MergeSample } from "../../src/dataset/sample.js";
import type { Recorder } from "../../src/mcp/attempt.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { Workbench, type WorkbenchSource } from "../../src/mcp/workbench.js";
import type { MemoryWorkspace } from "../../src/memory/memory-workspace.js";
import { runConfig } from "../../src/runs/config.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { RunStore } from "../../src/runs/store.js";
import { builtLater } from "./built-later.js";
import { BIN, captureSink, setEnv } from "./cli.js";
import type { Fixture } from "./fixture.js";
import { waitFor } from "./processes.js";
import { blob, buildMergeFixture, buildSpacedChainFixture, resolutionsFor } from "./scenarios.js";

/**
 * Two repositories laid out as clones under one directory (`repos/acme/widgets`: the merge fixture,
 * `repos/acme/chain`: the spaced chain), and one samples file with the merge sample and the chain sample.
 */
export interface McpFixtures {
  root: string;
  sandboxRoot: string;
  repos: string;
  samples: string;
  mergeFx: Fixture;
  merge: string;
  mergeSample: MergeSample;
  chainFx: Fixture;
  chainSample: ChainSample;
  /** The chain's commits, oldest first. */
  commits: string[];
  cleanup(): void;
}

export function buildMcpFixtures(): McpFixtures {
  const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-mcp-"));
  const m = buildMergeFixture();
  const c = buildSpacedChainFixture();
  const chainSample: ChainSample = { ...c.sample, name: "acme/chain" };
  const repos = path.join(root, "repos");
  mkdirSync(path.join(repos, "acme"), { recursive: true });
  symlinkSync(m.fx.dir, path.join(repos, "acme", "widgets"));
  symlinkSync(c.fx.dir, path.join(repos, "acme", "chain"));
  const samples = path.join(root, "samples.jsonl");
  writeFileSync(samples, `${sampleToJson(m.sample)}\n${sampleToJson(chainSample)}\n`);
  const sandboxRoot = path.join(root, "sandboxes");
  mkdirSync(sandboxRoot);
  return {
    root,
    sandboxRoot,
    repos,
    samples,
    mergeFx: m.fx,
    merge: m.merge,
    mergeSample: m.sample,
    chainFx: c.fx,
    chainSample,
    commits: c.commits,
    cleanup: () => {
      m.fx.remove();
      c.fx.remove();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A test file's MCP fixtures and fresh run directories under their root. */
export interface McpFixtureFile {
  /** The fixtures, there once the file's tests run (in a test or a later hook). */
  fx: McpFixtures;
  /** A run directory no test of the file has used: `run-NAME-0`, `run-NAME-1`, … under the fixtures' root. */
  outDir(): string;
}

/**
 * Builds the MCP fixtures before the test file's tests, with this process's sandboxes under their sandbox root
 * (`sandboxVars`) while the tests run, and removes them and restores the environment after.
 */
export function useMcpFixtures(name: string): McpFixtureFile {
  let built: McpFixtures | undefined;
  let restoreEnv = (): void => undefined;
  let n = 0;
  beforeAll(() => {
    built = buildMcpFixtures();
    restoreEnv = setEnv(sandboxVars(built.sandboxRoot));
  });
  afterAll(() => {
    restoreEnv();
    built?.cleanup();
  });
  const fx = builtLater(() => built, "the MCP fixtures");
  return { fx, outDir: () => path.join(fx.root, `run-${name}-${n++}`) };
}

/** The variables that put a server's sandboxes under the test's sandbox root (and name no sandbox of the caller's). */
export function sandboxVars(sandboxRoot: string): Record<string, string> {
  return { GITGOOD_SANDBOX: "", GITGOOD_SANDBOX_ROOT: sandboxRoot };
}

/** The environment a spawned server gets: this process's, with the test's sandbox root. */
export function serverEnv(sandboxRoot: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, ...sandboxVars(sandboxRoot), ...extra };
}

/** Sandboxes that exist under a sandbox root. */
export function sandboxesIn(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((n) => path.join(root, n))
    .filter((d) => existsSync(path.join(d, "work")));
}

/** The recorder `gitgood mcp SAMPLES --repos REPOS --out OUT [--id ID]` opens: agent "mcp", no judges. */
function recorderFor(fx: McpFixtures, out: string, ids: string[] | undefined, practice: boolean): Recorder {
  const agent = practice ? MCP_PRACTICE_AGENT : MCP_AGENT;
  const config = runConfig({ samples: [fx.samples], agent, where: { repos: fx.repos }, ...(ids ? { spec: { ids } } : {}) }, (p) => path.resolve(p));
  return { store: RunStore.open(out, config, { appendOnly: !practice }), judges: [], agent };
}

/** What `gitgood mcp SAMPLES --id ID [--scenario NAME] --repos REPOS --out OUT [--practice]` serves. */
export async function singleSource(fx: McpFixtures, id: string, out: string, scenario?: string, practice = false): Promise<WorkbenchSource> {
  const [sample] = await loadSamples([fx.samples], [id]);
  if (!sample) throw new Error(`no sample ${id} in ${fx.samples}`);
  return { mode: "single", sample, scenario, where: { repos: fx.repos }, recorder: recorderFor(fx, out, [id], practice), practice };
}

/** What `gitgood mcp SAMPLES --repos REPOS --out OUT [--all-tools] [--practice]` serves: every sample, in session mode. */
export async function sessionSource(fx: McpFixtures, out: string, allTools = false, practice = false): Promise<WorkbenchSource> {
  const recorder = recorderFor(fx, out, undefined, practice);
  return { mode: "session", samples: await loadSamples([fx.samples]), where: { repos: fx.repos }, recorder, allTools, practice };
}

export interface InMemoryConnection {
  client: Client;
  /** Resolves when the server has seen the connection close and settled the open scenario, if any. */
  closed: Promise<void>;
}

/**
 * Serves a workbench in this process, the server `gitgood mcp` builds, and connects a real SDK client
 * to it through the SDK's linked in-memory transports. When either side closes, the workbench is
 * closed as `serveStdio` closes it. Sandboxes go under this process's sandbox root.
 */
export async function connectInMemory(
  source: WorkbenchSource,
  opts: { memory?: MemoryWorkspace; transport?: "stdio" | "http" } = {},
): Promise<InMemoryConnection> {
  const bench = await Workbench.create({ source, memory: opts.memory ?? null });
  const server = createMcpServer(bench, opts.transport ?? "stdio");
  const closed = new Promise<void>((resolve, reject) => {
    server.onclose = () => void bench.close().then(resolve, reject);
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "gitgood-test", version: "1.0.0" });
  await client.connect(clientSide);
  return { client, closed };
}

export interface HttpServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** Sends a signal and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The bearer token the test servers get through GITGOOD_MCP_TOKEN (a server without one makes its own), and `connectHttp` sends. */
export const TEST_MCP_TOKEN = "gitgood-test-token";

/** Spawns `gitgood mcp --http 0 ARGS` (with TEST_MCP_TOKEN unless `env` names another) and waits until it says where it listens. */
export function startHttpServer(args: string[], env: Record<string, string>): Promise<HttpServer> {
  const child = spawn(process.execPath, [BIN, "mcp", "--http", "0", ...args], { env: { GITGOOD_MCP_TOKEN: TEST_MCP_TOKEN, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (b: Buffer) => {
      err += b.toString("utf8");
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        resolve({
          url: m[1] as string,
          child,
          stderr: () => err,
          stop: async (signal = "SIGTERM") => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening: ${err}`)));
  });
}

/** What a raw stdio client sends first: initialize (id 1), the initialized notification, and get_task (id 2). */
export const RAW_OPENING: readonly unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_task", arguments: {} } },
];

/** One JSON-RPC answer a stdio server wrote. */
export interface RpcReply {
  id: number;
  result?: { content?: { text: string }[] };
  error?: { code: number; message: string };
}

export interface StdioInProcess {
  /** Writes messages to the server's input, one JSON line each. */
  send(...messages: unknown[]): void;
  /** The answers written so far. */
  replies(): RpcReply[];
  stderr(): string;
  /** Ends the input (the client went away); resolves with main's exit code. */
  end(): Promise<number>;
  /** Aborts the call (as SIGTERM stops a process of its own); resolves with main's exit code. */
  stop(): Promise<number>;
}

/**
 * Runs `gitgood mcp ARGS` over stdio in this process, through `main(args, io)` with an input the test
 * writes to and an output it reads. The sandbox root is this process's while it serves.
 */
export function serveStdioInProcess(args: string[], sandboxRoot: string): StdioInProcess {
  const input = new PassThrough();
  const stdout = captureSink();
  const stderr = captureSink();
  const controller = new AbortController();
  const restoreEnv = setEnv(sandboxVars(sandboxRoot));
  const done = main(["mcp", ...args], { stdout, stderr, stdin: input, signal: controller.signal }).finally(restoreEnv);
  return {
    send: (...messages) => {
      for (const m of messages) input.write(`${JSON.stringify(m)}\n`);
    },
    replies: () =>
      stdout
        .text()
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as RpcReply),
    stderr: stderr.text,
    end: () => {
      input.end();
      return done;
    },
    stop: () => {
      controller.abort();
      return done;
    },
  };
}

/**
 * Runs `gitgood mcp --http 0 ARGS` in this process and waits until it says where it listens; `stop`
 * aborts it (as SIGTERM stops its own process) and resolves with main's exit code. The sandbox root is
 * this process's while it serves.
 */
export async function serveHttpInProcess(args: string[], sandboxRoot: string): Promise<{ url: string; stderr: () => string; stop: () => Promise<number> }> {
  const controller = new AbortController();
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const stderr = captureSink(() => {
    const m = /listening on (http:\/\/\S+)/.exec(stderr.text());
    if (m) listening(m[1] as string);
  });
  const restoreEnv = setEnv({ ...sandboxVars(sandboxRoot), GITGOOD_MCP_TOKEN: TEST_MCP_TOKEN });
  const done = main(["mcp", "--http", "0", ...args], { stdout: captureSink(), stderr, stdin: Readable.from([]), signal: controller.signal }).finally(restoreEnv);
  const exitedEarly = done.then((code) => Promise.reject(new Error(`server exited with ${code} before listening: ${stderr.text()}`)));
  return {
    url: await Promise.race([url, exitedEarly]),
    stderr: stderr.text,
    stop: async () => {
      controller.abort();
      return done;
    },
  };
}

/** Connects a real SDK client over Streamable HTTP (with TEST_MCP_TOKEN unless `headers` carry their own). */
export async function connectHttp(url: string, headers: Record<string, string> = { Authorization: `Bearer ${TEST_MCP_TOKEN}` }): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "gitgood-test-http", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

export interface Called {
  text: string;
  isError: boolean;
}

/** Calls a tool and joins its text content. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Called> {
  const r = await client.callTool({ name, arguments: args });
  const content = (r.content ?? []) as { type: string; text?: string }[];
  return { text: content.map((c) => c.text ?? "").join("\n"), isError: r.isError === true };
}

/** Calls a tool that must succeed. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r.text;
}

/** The task's structured data, read through the resource. */
export async function taskData(client: Client): Promise<Record<string, unknown>> {
  const r = await client.readResource({ uri: "gitgood://task.json" });
  const first = r.contents[0] as { text?: string } | undefined;
  return JSON.parse(first?.text ?? "{}") as Record<string, unknown>;
}

const REASON = "test client: reproduce the recorded history";

/** Resolves every conflict of the only live sandbox to the merge commit's content. */
export async function solveMcr(client: Client, fx: McpFixtures): Promise<string> {
  const [sandbox] = sandboxesIn(fx.sandboxRoot);
  if (!sandbox) throw new Error("no live sandbox");
  const files = (await taskData(client)).files as string[];
  let last = "";
  for (const file of files) {
    const conflicted = readFileSync(path.join(sandbox, "work", file));
    for (const content of resolutionsFor(conflicted, blob(fx.mergeFx, fx.merge, file))) {
      last = await ok(client, "resolve_current_merge_conflict_with", { content, reason: REASON });
    }
  }
  return last;
}

/** Picks every commit in its place and runs the rebase: the original history. */
export async function solveIr(client: Client): Promise<string> {
  const commits = (await taskData(client)).commits as unknown[];
  await ok(client, "update_rebase_todo_list", {
    rebase_todo_list_items: commits.map((_, i) => ({ commit_index: i, command: "pick" })),
    reason: REASON,
  });
  return ok(client, "execute_rebase", { reason: REASON });
}

/** The chain's original messages, oldest first. */
export function chainMessages(fx: McpFixtures): string[] {
  return fx.commits.map((c) => fx.chainFx.git("log", "-1", "--format=%B", c).trimEnd());
}

/** Commits the spaced chain's hunks one per original commit, with the original messages. */
export async function solveIcc(client: Client, fx: McpFixtures): Promise<string> {
  const messages = chainMessages(fx);
  for (const message of messages.slice(0, -1)) {
    await ok(client, "commit_changes_in", { selected_hunks: ["HUNK-0"], commit_message: message, reason: REASON });
  }
  return ok(client, "commit_remaining_changes", { commit_message: messages.at(-1) as string, reason: REASON });
}

/** The records of a run directory, by key. */
export function recordsIn(runDir: string): Record<string, ResultRecord> {
  const file = path.join(runDir, "results.jsonl");
  if (!existsSync(file)) return {};
  const out: Record<string, ResultRecord> = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as ResultRecord;
    out[r.key] = r;
  }
  return out;
}

/** The lines of a run directory's results.jsonl, one a record as written. */
export function resultLines(runDir: string): string[] {
  return readFileSync(path.join(runDir, "results.jsonl"), "utf8").trim().split("\n");
}

/** A record's trajectory file. */
export function trajectoryOf(runDir: string, record: ResultRecord | undefined): Record<string, unknown> {
  if (!record?.trajectory) throw new Error("no trajectory");
  return JSON.parse(readFileSync(path.join(runDir, record.trajectory), "utf8")) as Record<string, unknown>;
}

/** Waits until `check` holds, for at most `ms` (a deadline, not a timing assertion). */
export function until(check: () => boolean, what = "the condition the test waits for", ms = 60_000): Promise<void> {
  return waitFor(check, what, ms);
}
