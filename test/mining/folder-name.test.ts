import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isHostedUrl } from "../../src/mining/repository.js";
import { gitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";

const fixtures: Fixture[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.remove();
});

/** A repository with one chain sample and, when given, an origin remote. */
function repoWithChain(origin?: string): Fixture {
  const f = new Fixture();
  fixtures.push(f);
  f.commit("base", { "app.py": "v0\n" });
  f.commit("sep", { "README.md": "r\n" });
  for (let i = 1; i <= 3; i++) f.commit(`edit ${i}`, { "app.py": `v${i}\n` });
  if (origin !== undefined) f.git("remote", "add", "origin", origin);
  return f;
}

function warnings(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l.startsWith("warning:"));
}

describe("a repository named after its folder", () => {
  it("tells hosted origins from paths on this machine", () => {
    for (const url of ["https://github.com/a/b.git", "ssh://git@host/a/b", "git@github.com:a/b.git", "git://host/a/b"]) {
      expect(isHostedUrl(url), url).toBe(true);
    }
    for (const url of ["/work/main", "../other/repo", "./a/b", "file:///srv/a/b.git", "a/b", "C:\\src\\a\\b", "~/src/a/b"]) {
      expect(isHostedUrl(url), url).toBe(false);
    }
  });

  it("mines a repository without an origin with one warning that suggests --name", async () => {
    const f = repoWithChain();
    const r = await gitgood(["mine", f.dir, "--type", "file_commit_chain"]);
    expect(r.code).toBe(0);
    const folder = path.basename(f.dir);
    expect(JSON.parse(r.stdout.split("\n")[0] ?? "")).toMatchObject({ name: folder });
    const w = warnings(r.stderr);
    expect(w).toHaveLength(1);
    expect(w[0]).toContain(`'${folder}'`);
    expect(w[0]).toContain("--name owner/repo");
  });

  it("counts a path origin as no name: warns instead of naming the samples after two folders", async () => {
    const f = repoWithChain("/work/main");
    const r = await gitgood(["mine", f.dir, "--type", "file_commit_chain", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.split("\n")[0] ?? "")).toMatchObject({ name: path.basename(f.dir) });
    const summary = JSON.parse(r.stderr) as { warnings: string[] };
    expect(summary.warnings.filter((w) => w.includes("--name"))).toHaveLength(1);
  });

  it("is silent when --name is given or the origin is hosted", async () => {
    const named = await gitgood(["mine", repoWithChain().dir, "--name", "acme/tool"]);
    expect(named.code).toBe(0);
    expect(warnings(named.stderr)).toEqual([]);
    const hosted = await gitgood(["mine", repoWithChain("git@github.com:acme/tool.git").dir]);
    expect(hosted.code).toBe(0);
    expect(JSON.parse(hosted.stdout.split("\n")[0] ?? "")).toMatchObject({ name: "acme/tool" });
    expect(warnings(hosted.stderr)).toEqual([]);
  });

  it("refuses --type swe in one line unless --name is given", async () => {
    for (const origin of [undefined, "/srv/mirrors/acme/tool"]) {
      const r = await gitgood(["mine", repoWithChain(origin).dir, "--type", "swe"]);
      expect(r.code, r.stderr).not.toBe(0);
      expect(r.stdout).toBe("");
      const lines = r.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^gitgood: no hosted origin remote names this repository/);
      expect(lines[0]).toContain("--name owner/repo");
    }
  });
});
