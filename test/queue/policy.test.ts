// A worker's own policy against what a ticket asks: a ticket may narrow it, never widen it.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkPolicy, defaultPolicy, type WorkerPolicy } from "../../src/queue/policy.js";
import type { JobTicket } from "../../src/runs/ticket.js";

const GiB = 2 ** 30;
const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-policy-"));
const allowed = path.join(root, "tools");
const home = path.join(root, "home");
mkdirSync(path.join(allowed, "bin"), { recursive: true });
mkdirSync(home);
// A link inside the allowed directory that leads out of it.
symlinkSync(home, path.join(allowed, "out"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What a ticket's spec may ask of the isolation. */
type AskedIsolation = Partial<{ isolation: string; network: boolean; docker_image: string; allow_read: string[]; pass_env: string[] }>;

/** The parts of a ticket the policy reads: its agent and its spec (none: every setting at its default). */
function ticket(agent: string, isolation: AskedIsolation | null): JobTicket {
  return { key: "s.MCR", agent: { name: agent, model: null, options: {} }, ...(isolation === null ? {} : { spec: { isolation: "namespace", ...isolation } }) } as unknown as JobTicket;
}

function refusal(t: JobTicket, policy: WorkerPolicy): string | null {
  try {
    checkPolicy(t, policy);
    return null;
  } catch (err) {
    return `${(err as { code?: string }).code}: ${(err as Error).message}`;
  }
}

describe("a worker's policy", () => {
  const wide: WorkerPolicy = { ...defaultPolicy(), network: true, allowRead: [allowed], passEnv: ["TOOL_HOME"], agents: ["command"] };

  it("by default runs built-in, preset and llm agents in the namespace jail with nothing added, and nothing more", () => {
    const policy = defaultPolicy();
    for (const agent of ["oracle", "baseline", "llm", "claude-code"]) expect(refusal(ticket(agent, {}), policy), agent).toBeNull();
    expect(refusal(ticket("oracle", null), policy)).toBeNull();
    expect(refusal(ticket("command", {}), policy)).toBe("POLICY_REFUSED: the job asks for the command agent, which this worker does not give (--allow-agents command)");
    expect(refusal(ticket("mcp-command", {}), policy)).toMatch(/^POLICY_REFUSED: the job asks for the mcp-command agent/);
    expect(refusal(ticket("a2a", {}), policy)).toMatch(/^POLICY_REFUSED: the job asks for the a2a agent/);
    expect(refusal(ticket("oracle", { isolation: "none" }), policy)).toBe("POLICY_REFUSED: the job asks for --isolation none, which this worker does not give (it runs --isolation namespace)");
    expect(refusal(ticket("oracle", { isolation: "docker" }), policy)).toMatch(/^POLICY_REFUSED: the job asks for --isolation docker/);
    expect(refusal(ticket("oracle", { network: true }), policy)).toBe("POLICY_REFUSED: the job asks for the network, which this worker does not give (--network)");
    expect(refusal(ticket("oracle", { allow_read: [home] }), policy)).toBe(`POLICY_REFUSED: the job asks for reading ${home}, which this worker does not give (--allow-read)`);
    expect(refusal(ticket("oracle", { pass_env: ["OPENAI_API_KEY"] }), policy)).toBe("POLICY_REFUSED: the job asks for the variable OPENAI_API_KEY, which this worker does not give (--pass-env OPENAI_API_KEY)");
  });

  it("lets a ticket narrow what the worker gives, never widen it: not by a path out of an allowed one, through '..' or a link", () => {
    expect(refusal(ticket("command", { network: true, allow_read: [allowed, path.join(allowed, "bin")], pass_env: ["TOOL_HOME"] }), wide)).toBeNull();
    expect(refusal(ticket("command", {}), wide)).toBeNull();
    expect(refusal(ticket("mcp-command", {}), wide)).toMatch(/^POLICY_REFUSED: the job asks for the mcp-command agent/);
    expect(refusal(ticket("command", { allow_read: [`${allowed}/../home`] }), wide)).toMatch(/^POLICY_REFUSED: the job asks for reading .*\/tools\/\.\.\/home/);
    expect(refusal(ticket("command", { allow_read: [path.join(allowed, "out")] }), wide)).toMatch(/^POLICY_REFUSED: the job asks for reading .*\/tools\/out,/);
    expect(refusal(ticket("command", { allow_read: [`${allowed}-sibling`] }), wide)).toMatch(/^POLICY_REFUSED: the job asks for reading/);
    expect(refusal(ticket("command", { pass_env: ["TOOL_HOME", "HOME_KEY"] }), wide)).toMatch(/^POLICY_REFUSED: the job asks for the variable HOME_KEY/);
    expect(refusal(ticket("command", { isolation: "none" }), wide)).toMatch(/^POLICY_REFUSED: the job asks for --isolation none/);
  });

  it("a worker that runs unisolated takes any isolating ticket too, and docker only with its own image", () => {
    const none: WorkerPolicy = { ...defaultPolicy(), isolation: "none", agents: ["command"] };
    expect(refusal(ticket("command", { isolation: "none", network: true }), none)).toBeNull();
    expect(refusal(ticket("command", { isolation: "namespace" }), none)).toBeNull();
    expect(refusal(ticket("command", { isolation: "docker", docker_image: "evil/image" }), none)).toMatch(/^POLICY_REFUSED: the job asks for the docker image evil\/image/);
  });

  it("lets a ticket lower the jail's limits, never raise them above the worker's", () => {
    const policy = defaultPolicy();
    const withSpec = (spec: Record<string, unknown>) => ({ ...ticket("oracle", null), spec }) as JobTicket;
    expect(refusal(withSpec({ max_processes: 64, max_memory: GiB }), policy)).toBeNull();
    expect(refusal(withSpec({ max_processes: 100_000 }), policy)).toBe(
      "POLICY_REFUSED: the job asks for max_processes 100000, which this worker does not give (--max-processes 512)",
    );
    expect(refusal(withSpec({ max_processes: 64, max_memory: 64 * GiB }), policy)).toMatch(/^POLICY_REFUSED: the job asks for max_memory 68719476736, .*--max-memory 4294967296/);
    expect(refusal(withSpec({ accept_weak_limits: true }), policy)).toMatch(/^POLICY_REFUSED: the job asks for accept_weak_limits true/);
    const generous: WorkerPolicy = { ...policy, spec: { ...policy.spec, max_processes: 200_000, accept_weak_limits: true } };
    expect(refusal(withSpec({ max_processes: 100_000, accept_weak_limits: true }), generous)).toBeNull();
  });
});
