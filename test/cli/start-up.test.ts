import { spawn } from "node:child_process";
import { Help } from "commander";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { renderHelpTable } from "../../src/cli/help-table.js";
import { parseToolCall, type ToolFlags } from "../../src/cli/tool-call.js";
import { toolCommand } from "../../src/cli/tool.js";
import { VERBS } from "../../src/cli/verbs.js";
import { BIN, captureSink, gitgood, spawnGitgood, type CliResult } from "../helpers/cli.js";

// The built CLI is spawned: npm run build first.

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-start-up-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const io = () => ({ stdout: captureSink(), stderr: captureSink(), stdin: Readable.from([]) });

describe("the static verb table", () => {
  it("agrees with every verb's real command: the term gitgood --help lists and the one-line description", async () => {
    const help = new Help();
    for (const v of VERBS) {
      const cmd = (await v.load())(io());
      expect(cmd.name()).toBe(v.name);
      expect(help.subcommandTerm(cmd), v.name).toBe(v.term);
      expect(cmd.description(), v.name).toBe(v.summary);
    }
  });

  it("gives the same gitgood --help as a program holding every real verb", async () => {
    const { Command } = await import("commander");
    const full = new Command("gitgood").exitOverride();
    const listed = (await gitgood(["--help"])).stdout;
    for (const v of VERBS) full.addCommand((await v.load())(io()));
    const fullHelp = full.helpInformation({ error: false });
    // The commands section is what the table lists; the lines are the same, wrapping included.
    const commands = (text: string) => text.slice(text.indexOf("Commands:"));
    expect(commands(listed)).toBe(commands(fullHelp));
  });
});

describe("the built help table", () => {
  it("prints gitgood --help and every VERB --help as the real commands do", async () => {
    const table = await renderHelpTable();
    for (const v of VERBS) {
      const inProcess = await gitgood([v.name, "--help"]);
      expect(inProcess.code).toBe(0);
      expect(table[v.name], v.name).toBe(inProcess.stdout);
      const built = spawnGitgood([v.name, "--help"]);
      expect(built, v.name).toEqual({ code: 0, stdout: inProcess.stdout, stderr: "" });
    }
    expect(spawnGitgood(["help", "mine"]).stdout).toBe(table.mine);
    const listing = await gitgood(["--help"]);
    expect(table[""]).toBe(listing.stdout);
    expect(spawnGitgood(["--help"])).toEqual({ code: 0, stdout: listing.stdout, stderr: "" });
  });
});

/** The built CLI as its own process, without blocking this one (which serves the broker's socket). */
function spawnAsync(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString("utf8")));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe("gitgood tool's quick parser", () => {
  /** What commander makes of `gitgood tool ARGV`: the name and flags the action gets, or its error. */
  async function commanderParse(argv: string[]): Promise<{ name: string | undefined; flags: ToolFlags } | "error"> {
    const cmd = toolCommand(io());
    let seen: { name: string | undefined; flags: ToolFlags } | "error" = "error";
    cmd.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    cmd.action((name: string | undefined, flags: ToolFlags) => {
      seen = { name, flags: { ...flags } };
    });
    try {
      await cmd.parseAsync(argv, { from: "user" });
    } catch {
      return "error";
    }
    return seen;
  }

  it("reads a plain call as commander does, and leaves every other form to commander", async () => {
    const plain = [
      [],
      ["view_file"],
      ["view_file", "--args", '{"path": "a"}'],
      ["--args", "-", "view_file", "--json"],
      ["--args=@file", "--sandbox", "/tmp/x", "resolve"],
      ["--args", "--json", "x"],
      ["--list"],
      ["--json", "--list", "--args", "{}", "--args", "[1]"],
    ];
    for (const argv of plain) expect(parseToolCall(argv), argv.join(" ")).toEqual(await commanderParse(argv));
    const others = [["a", "b"], ["--nope"], ["-h"], ["--help"], ["--args"], ["--json=yes"], ["--", "x"], ["-x"]];
    for (const argv of others) expect(parseToolCall(argv), argv.join(" ")).toBeNull();
  });

  it("sends a call and a tool list to the broker, and words mistakes as commander does", async () => {
    const socket = path.join(dir, "tool.sock");
    const seen: unknown[] = [];
    const server = net.createServer((conn) => {
      let text = "";
      conn.on("data", (b: Buffer) => (text += b.toString("utf8")));
      conn.on("end", () => {
        const request = JSON.parse(text) as { op: string };
        seen.push(request);
        const value = request.op === "describe" ? { functions: [], help: "one tool" } : { ok: true, output: "called", done: false };
        conn.end(`${JSON.stringify({ ok: true, value })}\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const env = { GITGOOD_TOOL_SOCKET: socket };
      expect(await spawnAsync(["tool", "view_file", "--args", '{"path": "a"}'], env)).toEqual({ code: 0, stdout: "called\n", stderr: "" });
      expect(await spawnAsync(["tool", "--list"], env)).toEqual({ code: 0, stdout: "one tool\n", stderr: "" });
      expect(seen).toEqual([{ op: "call", tool: "view_file", args: { path: "a" } }, { op: "describe" }]);
      const wrong = await spawnAsync(["tool", "a", "b"], env);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(/^error: too many arguments for 'tool'/);
      expect(seen).toHaveLength(2);
    } finally {
      server.close();
    }
  });

  it("is what main runs for gitgood tool: an unknown option gets commander's message", async () => {
    const r = await gitgood(["tool", "--nope"], {}, main);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown option '--nope'/);
  });
});
