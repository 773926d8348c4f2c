import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { checkPolicy, defaultPolicy } from "../../src/queue/policy.js";
import { RunStore } from "../../src/runs/store.js";
import { parseTicket } from "../../src/runs/ticket.js";
import { DEFAULT_ISOLATION } from "../../src/sandbox/isolation.js";
import { useOneMerge } from "../helpers/one-merge.js";
import { oracleTicket } from "../helpers/runs.js";

/*
 * The isolation asked for (`--isolation`, `--network`, `--docker-image`, `--allow-read`, `--pass-env`) as run
 * settings: options of run and bench made from their declarations, recorded in run.json's spec (not its
 * identity) beside the isolation record of what the host gave, carried by a queue ticket's spec, where a
 * worker's policy reads them. A run.json written before they moved (the record alone) reads as asked.
 */

const merge = useOneMerge();
const { run, silent } = merge;
let tools: string;

beforeAll(() => {
  tools = merge.fx.scratch("tools");
  mkdirSync(path.join(tools, "bin"), { recursive: true });
});

type RunJson = { identity: Record<string, unknown> & { spec?: Record<string, unknown> }; spec?: Record<string, unknown>; isolation?: Record<string, unknown> };

const readRunJson = (dir: string) => merge.readRunJson<RunJson>(dir);

const ISOLATION_KEYS = ["isolation", "network", "docker_image", "allow_read", "pass_env"];

describe("the isolation asked for as run settings", () => {
  it("are options of run and bench made from their declarations", async () => {
    for (const verb of ["run", "bench"]) {
      const help = (await buildProgram(silent, verb)).commands.find((c) => c.name() === verb)?.helpInformation() ?? "";
      expect(help, verb).toMatch(/--isolation <mode>\s+how agent programs are isolated/);
      for (const option of ["--network", "--docker-image <image>", "--allow-read <path>", "--pass-env <name>"]) expect(help, verb).toContain(option);
    }
  });

  it("are recorded in run.json's spec (paths made absolute), beside the record of what the host gave, and not in its identity", async () => {
    const out = path.join(merge.fx.scratch("runs"), "asked");
    const first = await run(out, ["--allow-read", "tools", "--allow-read", path.join(tools, "bin"), "--pass-env", "TOOL_HOME", "--pass-env", "TOOL_PATH"], path.dirname(tools));
    expect(first.code, first.stderr).toBe(0);
    const json = readRunJson(out);
    expect(json.spec).toMatchObject({ isolation: DEFAULT_ISOLATION, network: false, allow_read: [tools, path.join(tools, "bin")], pass_env: ["TOOL_HOME", "TOOL_PATH"] });
    expect(json.isolation).toMatchObject({ mode: DEFAULT_ISOLATION, allow_read: [tools, path.join(tools, "bin")], pass_env: ["TOOL_HOME", "TOOL_PATH"] });
    expect(json.isolation).toHaveProperty("limits.enforcement");
    for (const key of ISOLATION_KEYS) expect(json.identity.spec ?? {}).not.toHaveProperty(key);
    // How the programs are kept is not what is evaluated: another session may ask otherwise.
    const again = await run(out, []);
    expect(again.code, again.stderr).toBe(0);
    expect(readRunJson(out).spec).toMatchObject({ allow_read: [], pass_env: [] });
  });

  it("are read from the configuration file, a list of paths as the option repeated; an unknown backend is one line", async () => {
    const out = path.join(merge.fx.scratch("runs"), "configured");
    const config = path.join(merge.fx.scratch("config"), "gitgood.config.yaml");
    writeFileSync(config, `allow-read: [${tools}, ${path.join(tools, "bin")}]\nrun:\n  pass-env: TOOL_HOME\n`);
    const r = await run(out, ["--config", config]);
    expect(r.code, r.stderr).toBe(0);
    expect(readRunJson(out).spec).toMatchObject({ allow_read: [tools, path.join(tools, "bin")], pass_env: ["TOOL_HOME"] });
    const bad = await run(path.join(merge.fx.scratch("runs"), "bad"), ["--isolation", "chroot"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^gitgood: --isolation takes .*namespace.*, not 'chroot'\n$/);
  });

  it("a run.json of the previous layout (the isolation record alone) reads as asked and resumes with the same flags", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous");
    const args = ["--allow-read", tools, "--pass-env", "TOOL_HOME"];
    expect((await run(out, args)).code).toBe(0);
    const json = readRunJson(out);
    const spec = Object.fromEntries(Object.entries(json.spec ?? {}).filter(([k]) => !ISOLATION_KEYS.includes(k)));
    writeFileSync(path.join(out, "run.json"), JSON.stringify({ ...json, spec }));
    expect(RunStore.readConfig(out).spec).toMatchObject({ isolation: DEFAULT_ISOLATION, network: false, allow_read: [tools], pass_env: ["TOOL_HOME"] });
    const again = await run(out, args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already done/);
  });

  it("travel in a queue ticket's spec, where a worker's policy reads them; a ticket of an older producer with an isolation record beside its spec is refused", async () => {
    const out = path.join(merge.fx.scratch("runs"), "ticketed");
    expect((await run(out, ["--pass-env", "OPENAI_API_KEY", "--allow-read", tools])).code).toBe(0);
    const ticket = oracleTicket(out, merge.sample);
    expect(ticket.spec).toMatchObject({ isolation: DEFAULT_ISOLATION, pass_env: ["OPENAI_API_KEY"], allow_read: [tools] });
    expect(ticket).not.toHaveProperty("isolation");
    expect(() => checkPolicy(ticket, defaultPolicy())).toThrow(/^the job asks for reading .*tools, which this worker does not give \(--allow-read\)$/);
    expect(() => checkPolicy(ticket, { ...defaultPolicy(), allowRead: [tools] })).toThrow(/^the job asks for the variable OPENAI_API_KEY, which this worker does not give \(--pass-env OPENAI_API_KEY\)$/);
    expect(() => checkPolicy({ ...ticket, spec: { ...ticket.spec, isolation: "none" } }, { ...defaultPolicy(), allowRead: [tools], passEnv: ["OPENAI_API_KEY"] })).toThrow(
      /^the job asks for --isolation none, which this worker does not give/,
    );
    expect(() => checkPolicy(ticket, { ...defaultPolicy(), allowRead: [tools], passEnv: ["OPENAI_API_KEY"] })).not.toThrow();
    // An older producer's isolation record would go unread (the job run under the spec's defaults): refused instead.
    const old = { isolation: { mode: "none", network: true, docker_image: null, allow_read: [], pass_env: [] } };
    expect(() => parseTicket({ ...ticket, ...old })).toThrow(/^not a job ticket of this gitgood: isolation travel in its spec now/);
  });
});
