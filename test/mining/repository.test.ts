import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mine } from "../../src/mining/mine.js";
import { normalizeMetadata } from "../../src/mining/metadata.js";
import { Fixture } from "../helpers/fixture.js";

const fixtures: Fixture[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.remove();
});

const MIT = `MIT License

Copyright (c) 2024 Acme

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction.
`;

/** A repository with one chain sample, so repository fields can be read off a sample. */
function repoWithChain(files: Record<string, string> = {}): Fixture {
  const f = new Fixture();
  fixtures.push(f);
  f.commit("base", { "app.py": "v0\n", ...files });
  f.commit("sep", { "README.md": "r\n" });
  for (let i = 1; i <= 3; i++) f.commit(`edit ${i}`, { "app.py": `v${i}\n` });
  return f;
}

describe("repository fields", () => {
  it("reads name, default branch, license, language and size from the repository", async () => {
    const f = repoWithChain({
      LICENSE: MIT,
      "lib/one.py": Fixture.lines("x = ", 700),
      "lib/two.py": "\n\n" + Fixture.lines("y = ", 400),
      "Main.java": "class Main {}\n",
    });
    f.git("remote", "add", "origin", "https://github.com/Acme/Widget-Tool.git");
    const { samples } = await mine({ repoPath: f.dir });
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({
      id: "Acme_Widget_Tool_file_commit_chain_0000",
      name: "Acme/Widget-Tool",
      default_branch: "main",
      license: "MIT",
      stargazers: null,
      created_at: null,
      topics: null,
      programming_language: "Python",
      project_size: "small", // 700 + 400 + 1 + 1 non-blank lines
    });
  });

  it("prefers origin/HEAD for the default branch and the folder name without a remote", async () => {
    const f = repoWithChain();
    f.git("branch", "develop");
    f.git("update-ref", "refs/remotes/origin/develop", "HEAD");
    f.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop");
    const { samples } = await mine({ repoPath: f.dir });
    expect(samples[0]?.default_branch).toBe("develop");
    expect(samples[0]?.name).toBe(path.basename(f.dir));
    expect(samples[0]?.license).toBeNull();
    expect(samples[0]?.project_size).toBe("tiny");
  });

  it("takes metadata over what the repository says", async () => {
    const f = repoWithChain({ LICENSE: MIT });
    const metadata = normalizeMetadata({
      stargazers_count: 4200,
      license: { spdx_id: "Apache-2.0" },
      topics: ["vcs", "bench"],
      created_at: "2019-05-01T10:00:00Z",
      language: "Kotlin",
    });
    const { samples } = await mine({ repoPath: f.dir, name: "o/r", metadata });
    expect(samples[0]).toMatchObject({
      id: "o_r_file_commit_chain_0000",
      name: "o/r",
      license: "Apache-2.0",
      stargazers: 4200,
      topics: "vcs;bench",
      created_at: "2019-05-01T10:00:00Z",
      programming_language: "Kotlin",
    });
  });
});

describe("repository filters", () => {
  const passing = {
    stargazers_count: 5000,
    archived: false,
    fork: false,
    license: { spdx_id: "MIT" },
    contributors: 12,
    branches: 9,
    size: 2048,
    pushed_at: new Date().toISOString(),
  };

  it("mines a repository that passes every filter", async () => {
    const f = repoWithChain();
    const r = await mine({ repoPath: f.dir, filter: true, metadata: normalizeMetadata(passing) });
    expect(r.summary.excluded).toBe(false);
    expect(r.summary.filters?.every((x) => x.passed)).toBe(true);
    expect(r.samples).toHaveLength(1);
  });

  it("yields nothing and says which filters failed", async () => {
    const f = repoWithChain();
    const r = await mine({
      repoPath: f.dir,
      filter: true,
      metadata: normalizeMetadata({ ...passing, stargazers_count: 10, fork: true, license: "GPL-3.0" }),
    });
    expect(r.samples).toEqual([]);
    expect(r.summary.excluded).toBe(true);
    expect(r.summary.filters?.filter((x) => !x.passed).map((x) => x.filter)).toEqual(["stars", "fork", "license"]);
  });

  it("reads branches and contributors from the repository when metadata lacks them", async () => {
    const f = repoWithChain();
    const r = await mine({ repoPath: f.dir, filter: true });
    const byName = Object.fromEntries((r.summary.filters ?? []).map((x) => [x.filter, x]));
    expect(byName.branches).toMatchObject({ value: 1, passed: false, source: "repository" });
    expect(byName.contributors).toMatchObject({ value: 1, passed: false, source: "repository" });
    expect(byName.stars).toMatchObject({ value: null, passed: false, source: "unknown" });
  });
});

describe("metadata file", () => {
  it("is read from JSON", async () => {
    const f = repoWithChain();
    const file = path.join(f.scratch("md"), "meta.json");
    writeFileSync(file, JSON.stringify({ stars: 7 }));
    const { readMetadataFile } = await import("../../src/mining/metadata.js");
    expect(readMetadataFile(file).stargazers).toBe(7);
    writeFileSync(file, "{ not json");
    expect(() => readMetadataFile(file)).toThrow(/is not valid JSON/);
  });
});
