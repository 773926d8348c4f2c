import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Imports the built package (npm test builds first) by its own name, in a child Node process whose
// module-resolution hook records every URL it resolves.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DIST = (file: string) => pathToFileURL(path.join(ROOT, "dist", file)).href;
const MARK = "--- a model is asked";
const HEAVY = ["/node_modules/@modelcontextprotocol/sdk/", "/node_modules/openai/"];

const HOOKS = `
import { appendFileSync } from "node:fs";
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(file, result.url + "\\n");
  return result;
}`;

let tmp: string;
beforeAll(() => {
  if (!existsSync(path.join(ROOT, "dist", "index.js"))) throw new Error("dist/ is missing: run 'npm run build' before these tests");
  tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-exports-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Runs `script` as an ES module in the package directory; returns what it printed and every URL
 * resolved, in order (the script may add lines of its own to $URLS_FILE to mark a point).
 */
function runRecorded(name: string, script: string): { stdout: string; urls: string[] } {
  const file = path.join(tmp, `${name}.txt`);
  const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)}, { data: { file: ${JSON.stringify(file)} } });`;
  const stdout = execFileSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", script], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, OPENAI_BASE_URL: "http://127.0.0.1:9/v1", URLS_FILE: file },
  });
  return { stdout, urls: existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [] };
}

const heavy = (urls: readonly string[]) => urls.filter((u) => HEAVY.some((h) => u.includes(h)));

describe("package entry points", () => {
  it("importing gitgood and gitgood/model, making agents and model clients loads neither the MCP SDK nor openai until a model is asked", () => {
    const { stdout, urls } = runRecorded(
      "root",
      `import { appendFileSync } from "node:fs";
       const api = await import("gitgood");
       const models = await import("gitgood/model");
       api.createAgent("mcp-command", { command: "true" });
       api.createAgent("llm", { model: "Some/Model" });
       const client = models.lookupModel("Some/Model", { maxRetries: 0 });
       process.stdout.write(JSON.stringify({ root: import.meta.resolve("gitgood"), mcp: "createMcpServer" in api, scripted: "ScriptedModelClient" in api }) + "\\n");
       appendFileSync(process.env.URLS_FILE, "${MARK}\\n");
       const err = await client.complete({ messages: [{ role: "user", content: "x" }] }).catch((e) => e);
       process.stdout.write(JSON.stringify({ code: err.code }) + "\\n");`,
    );
    const [first, second] = stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toEqual({ root: DIST("index.js"), mcp: false, scripted: false });
    expect(second).toEqual({ code: "MODEL_UNREACHABLE" });
    const mark = urls.indexOf(MARK);
    expect(mark).toBeGreaterThan(0);
    const beforeRequest = urls.slice(0, mark);
    expect(heavy(urls.slice(mark)).some((u) => u.includes("/node_modules/openai/")), "the model request loads openai").toBe(true);
    expect(beforeRequest).toContain(DIST("index.js"));
    expect(beforeRequest).toContain(DIST("agents/mcp-command.js"));
    expect(beforeRequest).toContain(DIST("model/openai.js"));
    expect(heavy(beforeRequest)).toEqual([]);
    expect(urls.filter((u) => u.includes("/node_modules/@modelcontextprotocol/sdk/"))).toEqual([]);
  });

  it("gitgood/mcp and gitgood/testing resolve through the package's own exports", () => {
    const { stdout, urls } = runRecorded(
      "subpaths",
      `const mcp = await import("gitgood/mcp");
       const testing = await import("gitgood/testing");
       const reply = await new testing.ScriptedModelClient(["hi"]).complete({ messages: [] });
       process.stdout.write(JSON.stringify({
         mcp: import.meta.resolve("gitgood/mcp"),
         testing: import.meta.resolve("gitgood/testing"),
         mcpExports: ["Workbench", "createMcpServer", "serveStdio", "serveHttp", "McpCommandAgent"].map((n) => typeof mcp[n]),
         reply: reply.message.content,
       }));`,
    );
    expect(JSON.parse(stdout)).toEqual({
      mcp: DIST("mcp/index.js"),
      testing: DIST("testing.js"),
      mcpExports: ["function", "function", "function", "function", "function"],
      reply: "hi",
    });
    expect(urls).toContain(DIST("mcp/index.js"));
    expect(urls).toContain(DIST("testing.js"));
    expect(urls.some((u) => u.includes("/node_modules/@modelcontextprotocol/sdk/")), "gitgood/mcp loads the MCP SDK").toBe(true);
  });
});
