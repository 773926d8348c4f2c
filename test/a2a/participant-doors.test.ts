import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ParticipantExecutor } from "../../src/a2a/participant.js";
import { agentCard, serveA2a, type A2aHandle } from "../../src/a2a/server.js";
import { askAgent, connectAgent } from "../../src/agents/a2a-client.js";
import { ScriptedModelClient } from "../../src/model/scripted.js";
import { chooseIsolation } from "../../src/sandbox/isolation.js";
import { gitgood } from "../helpers/cli.js";

// `gitgood a2a agent` works only in REPO_DIRs under its shared directory, and never copies a huge one.
let scratch: string;
let shared: string;
let outside: string;
let handle: A2aHandle;
let model: ScriptedModelClient;
let tmp: string;
const savedTmp = process.env.TMPDIR;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-participant-"));
  // The participant's copies go to a temporary directory of this file's own, so other test files running at
  // the same time cannot change the count this file checks.
  tmp = path.join(scratch, "tmp");
  mkdirSync(tmp);
  process.env.TMPDIR = tmp;
  shared = path.join(scratch, "shared");
  outside = path.join(scratch, "home");
  mkdirSync(path.join(shared, "small"), { recursive: true });
  writeFileSync(path.join(shared, "small", "a.py"), "x = 1\n");
  mkdirSync(path.join(shared, "big"), { recursive: true });
  writeFileSync(path.join(shared, "big", "blob.bin"), Buffer.alloc(3 * 1024 * 1024));
  mkdirSync(outside);
  writeFileSync(path.join(outside, "canary.txt"), "canary\n");
  model = new ScriptedModelClient([]);
  const card = agentCard({ name: "participant", description: "test", url: "http://127.0.0.1:1", skills: [] });
  const executor = new ParticipantExecutor({ model, isolation: chooseIsolation({ mode: "none" }), sharedDir: shared, maxRepoBytes: 1024 * 1024, log: () => undefined });
  handle = await serveA2a({ host: "127.0.0.1", port: 0, access: { allowedOrigins: [], loopback: true }, card, executor });
  card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: `${handle.url}/` }));
});
afterAll(async () => {
  await handle.close();
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(scratch, { recursive: true, force: true });
});

async function ask(text: string): Promise<string> {
  return (await askAgent(await connectAgent(handle.url), [{ text }], { signal: new AbortController().signal, pollSeconds: 0.05 })).text;
}

describe("a2a agent: REPO_DIR", () => {
  it("must lie under --shared-dir (links resolved), and must not be larger than the limit; nothing is copied otherwise", async () => {
    const tmpBefore = readdirSync(tmp).length;
    await expect(ask(`REPO_DIR:${outside}\n\nProblem Statement:\nfix it`)).rejects.toThrow(`REPO_DIR ${outside} is not under this agent's shared directory ${shared}`);
    await expect(ask(`REPO_DIR:${path.join(shared, "..", "home")}\n\nProblem Statement:\nfix it`)).rejects.toThrow(/is not under this agent's shared directory/);
    await expect(ask(`REPO_DIR:${path.join(shared, "big")}\n\nProblem Statement:\nfix it`)).rejects.toThrow(/holds more than 1 MB of files, above this agent's limit \(--max-repo-mb\)/);
    expect(model.requests).toHaveLength(0);
    expect(readdirSync(tmp)).toHaveLength(tmpBefore);
  }, 60_000);

  it("the CLI will not serve without a shared directory", async () => {
    const r = await gitgood(["a2a", "agent", "--model", "m", "--port", "0"], { env: { GITGOOD_A2A_SHARED_DIR: "" } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("gitgood: give --shared-dir DIR (or $GITGOOD_A2A_SHARED_DIR): the directory the green agent puts SWE tasks' REPO_DIR in");
  });
});
