import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnGitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";

// The built CLI in processes of its own (`npm run build` first), loading examples/toy-family as a plug-in.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TOY = "./examples/toy-family";

const toyRow = (id: string, a: number, b: number) => ({
  id,
  name: "acme/toy",
  default_branch: "main",
  license: null,
  stargazers: null,
  created_at: null,
  topics: null,
  programming_language: "Python",
  scenario: { a, b },
  sample_type: "toy_sum",
  project_size: null,
  difficulty: "easy",
});

let fx: Fixture;
let samples: string;
let runDir: string;

beforeAll(() => {
  fx = new Fixture();
  fx.commit("start", { "README.md": "toy\n" });
  samples = path.join(fx.scratch("data"), "toy.jsonl");
  writeFileSync(samples, [toyRow("toy_sum_0000", 2, 3), toyRow("toy_sum_0001", 40, 2)].map((r) => `${JSON.stringify(r)}\n`).join(""));
  runDir = path.join(fx.scratch("runs"), "toy");
});

afterAll(() => fx.remove());

/** A module that writes `marker` when it is imported: the proof that gitgood loaded it. */
function markerPlugin(dir: string, marker: string): string {
  const file = path.join(dir, "evil.js");
  writeFileSync(file, `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "loaded");\nexport default function register() {}\n`);
  return file;
}

describe("gitgood --plugin: a family from outside src/, through the real CLI", () => {
  it("runs, reports and exports the toy family", () => {
    const run = spawnGitgood(["run", samples, "--plugin", TOY, "--repo", fx.dir, "--agent", "toy-adder", "--toy-hint", "--out", runDir, "--json", "--jobs", "1"], { cwd: ROOT });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { totals: { scenario: string; solved: number }[]; toysum: unknown };
    expect(report.totals.find((t) => t.scenario === "TOYSUM")?.solved).toBe(2);
    expect(report.toysum).toEqual([{ agent: "toy-adder", attempts: 2, exact: 2 }]);

    const csv = path.join(fx.scratch("out"), "toy.csv");
    const text = spawnGitgood(["--plugin", TOY, "report", runDir, "--toy-csv", csv], { cwd: ROOT });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Toy sums\s+agent\s+attempts\s+exact\s+toy-adder\s+2\s+2/);
    expect(readFileSync(csv, "utf8")).toBe("sample_id,agent,verdict\ntoy_sum_0000,toy-adder,solved\ntoy_sum_0001,toy-adder,solved\n");

    const sft = path.join(fx.scratch("out"), "sft.jsonl");
    const exported = spawnGitgood(["export", "sft", `--plugin=${TOY}`, runDir, "--out", sft], { cwd: ROOT });
    expect(exported.code, exported.stderr).toBe(0);
    const conversations = readFileSync(sft, "utf8").trim().split("\n");
    expect(conversations).toHaveLength(2);
    expect(conversations[0]).toContain("submit_sum");
  });

  it("shows the plug-in's options in help, and without it gitgood knows nothing of the family", () => {
    const help = spawnGitgood(["run", "--help", "--plugin", TOY], { cwd: ROOT });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain("--toy-hint");
    const plain = spawnGitgood(["run", "--help"], { cwd: ROOT });
    expect(plain.stdout).not.toContain("--toy-hint");
    expect(spawnGitgood(["--help"], { cwd: ROOT }).stdout).toContain("--plugin <module>");
  });

  it("loads the plug-ins a configuration file names, from the file's directory", () => {
    const dir = fx.scratch("config");
    writeFileSync(path.join(dir, "gitgood.config.yaml"), `plugins:\n  - ${path.join(ROOT, "examples/toy-family")}\n`);
    // The plug-in's own report format (--toy-csv) exists only once the plug-in is loaded.
    const csv = path.join(dir, "toy.csv");
    const report = spawnGitgood(["report", runDir, "--config", "gitgood.config.yaml", "--toy-csv", csv], { cwd: dir });
    expect(report.code, report.stderr).toBe(0);
    expect(existsSync(csv)).toBe(true);
    // Found in the working directory (a cloned repository's, say), the same file loads no code.
    const found = spawnGitgood(["report", runDir, "--toy-csv", csv], { cwd: dir });
    expect(found.code).toBe(2);
    expect(found.stderr).toBe("gitgood: gitgood.config.yaml: plugins: names plug-ins, which run code: load them with --config gitgood.config.yaml (or --plugin), never from a file only found in the working directory\n");
    const other = fx.scratch("config-elsewhere");
    writeFileSync(path.join(other, "my.yaml"), "plugins: ../nowhere/plugin.js\n");
    const missing = spawnGitgood(["report", runDir, "--config", path.join(other, "my.yaml")], { cwd: ROOT });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`gitgood: plug-in ../nowhere/plugin.js (${path.join(other, "my.yaml")}): no such file or installed package (looked from ${other})\n`);
  });

  it("takes a plug-in's isolation backend by name, refuses it where it cannot run, and lists the names for an unknown one", () => {
    const dir = fx.scratch("isolation-plugin");
    writeFileSync(
      path.join(dir, "jail.js"),
      `export default (api) => api.registerIsolation({ name: "far-jail", summary: "a jail on another host", usesImage: false, isolates: true,
        unavailable: () => "the far host is not reachable", command: () => { throw new Error("never started"); },
        enforcement: () => { throw new Error("never asked"); }, node: () => "node" });\n`,
    );
    const run = spawnGitgood(["--plugin", "./jail.js", "--plugin", path.join(ROOT, TOY), "run", samples, "--repo", fx.dir, "--agent", "oracle", "--isolation", "far-jail", "--out", path.join(dir, "run")], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("gitgood: --isolation far-jail cannot run here (the far host is not reachable); choose --isolation namespace or --isolation docker or --isolation none");
    const unknown = spawnGitgood(["--plugin", "./jail.js", "run", samples, "--isolation", "nowhere"], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("gitgood: --isolation takes namespace, docker, none, far-jail, not 'nowhere'");
  });

  it("refuses a plug-in that cannot be loaded in one line naming it and the cause", () => {
    const dir = fx.scratch("bad-plugins");
    writeFileSync(path.join(dir, "none.js"), "export const x = 1;\n");
    writeFileSync(path.join(dir, "throws.js"), 'throw new Error("cannot start");\n');
    writeFileSync(path.join(dir, "clash.js"), 'export function register(api) { api.registerReportFormat({ name: "json", description: "again", output: "file", render: () => "" }); }\n');
    const cases: [string, string][] = [
      ["./missing", "plug-in ./missing (--plugin): no such file or installed package"],
      ["./none.js", "plug-in ./none.js (--plugin): exports no register function (a default export or one named register)"],
      ["./throws.js", "plug-in ./throws.js (--plugin): cannot be imported: cannot start"],
      ["./clash.js", "plug-in ./clash.js (--plugin): its registration failed: a report format named json is registered already"],
      ["no-such-package-for-gitgood", "plug-in no-such-package-for-gitgood (--plugin): no such file or installed package"],
    ];
    for (const [module, message] of cases) {
      const r = spawnGitgood(["--plugin", module, "report", runDir], { cwd: dir });
      expect(r.code, module).toBe(2);
      expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(1);
      expect(r.stderr).toContain(`gitgood: ${message}`);
    }
    expect(spawnGitgood(["report", runDir, "--plugin"], { cwd: dir }).stderr).toBe("gitgood: --plugin takes a module: a path (./my-family) or an installed package's name\n");
  });

  it("loads nothing from a repository it mines, nor for an agent's tool call in a directory it wrote", () => {
    // A hostile repository carries a configuration file naming a plug-in of its own.
    const hostile = new Fixture();
    const marker = path.join(fx.scratch("markers"), "mined");
    try {
      markerPlugin(hostile.dir, marker);
      writeFileSync(path.join(hostile.dir, "gitgood.config.yaml"), "plugins: [./evil.js]\n");
      hostile.commit("config", { "README.md": "x\n" });
      const mined = spawnGitgood(["mine", hostile.dir, "--type", "merge"], { cwd: ROOT });
      expect(mined.code, mined.stderr).toBe(0);
      expect(existsSync(marker)).toBe(false);
    } finally {
      hostile.remove();
    }
    // An agent's work tree: `gitgood tool` started there reads no configuration.
    const work = fx.scratch("agent-work");
    const toolMarker = path.join(fx.scratch("markers"), "tool");
    markerPlugin(work, toolMarker);
    writeFileSync(path.join(work, "gitgood.config.yaml"), "plugins: [./evil.js]\n");
    spawnGitgood(["tool", "git_status"], { cwd: work });
    expect(existsSync(toolMarker)).toBe(false);
    // Nor does a gitgood verb started there: the file's plug-ins are refused, not loaded.
    const refused = spawnGitgood(["report", runDir], { cwd: work });
    expect(refused.code).toBe(2);
    expect(existsSync(toolMarker)).toBe(false);
    // The same module does load where the user asks for it: the marker is the proof that the checks above could fail.
    spawnGitgood(["--plugin", path.join(work, "evil.js"), "report", runDir], { cwd: ROOT });
    expect(existsSync(toolMarker)).toBe(true);
  });
});
