import { describe, expect, it } from "vitest";
import { idPrefix, projectSizeOf, sampleId } from "../../src/dataset/sample.js";
import { LanguageSet } from "../../src/dataset/languages.js";
import { detectLicense } from "../../src/mining/license.js";
import { normalizeMetadata } from "../../src/mining/metadata.js";
import { chainDifficulty, roundedRatio } from "../../src/mining/purity.js";
import { nameFromRemoteUrl } from "../../src/mining/repository.js";
import { childrenFirst, mergeDifficulty } from "../../src/mining/merges.js";
import { CommitGraph } from "../../src/git/commitgraph.js";

describe("roundedRatio", () => {
  it("rounds like Python's round(x, 2), ties to even", () => {
    expect(roundedRatio(1, 8)).toBe(0.12); // 0.125
    expect(roundedRatio(3, 8)).toBe(0.38); // 0.375
    expect(roundedRatio(5, 8)).toBe(0.62); // 0.625
    expect(roundedRatio(7, 8)).toBe(0.88); // 0.875
    expect(roundedRatio(2, 3)).toBe(0.67);
    expect(roundedRatio(1, 3)).toBe(0.33);
    expect(roundedRatio(199, 200)).toBe(0.99); // the float 0.995 lies just below the tie
    expect(roundedRatio(3, 200)).toBe(0.01); // so does 0.015
    expect(roundedRatio(9, 8)).toBe(1.12); // 1.125
    expect(roundedRatio(1, 1)).toBe(1);
    expect(roundedRatio(0, 5)).toBe(0);
    expect(roundedRatio(1001, 2000)).toBe(0.5); // 0.5005
  });
  it("rejects a zero denominator", () => {
    expect(() => roundedRatio(1, 0)).toThrow(RangeError);
  });
});

describe("difficulty", () => {
  it("maps purity to chain difficulty with configurable thresholds", () => {
    expect(chainDifficulty(1)).toBe("easy");
    expect(chainDifficulty(0.99)).toBe("medium");
    expect(chainDifficulty(0.75)).toBe("medium");
    expect(chainDifficulty(0.74)).toBe("hard");
    expect(chainDifficulty(0.5)).toBe("hard");
    expect(chainDifficulty(0.7, { medium: 0.6 })).toBe("medium");
  });
  it("maps conflicts to merge difficulty", () => {
    expect(mergeDifficulty(1, 1)).toBe("easy");
    expect(mergeDifficulty(1, 3)).toBe("medium");
    expect(mergeDifficulty(2, 2)).toBe("hard");
  });
});

describe("LanguageSet", () => {
  it("maps extensions of the chosen languages only", () => {
    const l = new LanguageSet(["python", "kotlin"]);
    expect(l.languageOf("src/a.py")).toBe("python");
    expect(l.languageOf("b/Main.kt")).toBe("kotlin");
    expect(l.languageOf("Main.java")).toBeNull();
    expect(l.languageOf("dir.py/README")).toBeNull();
    expect(l.languageOf(".py")).toBeNull();
    expect(l.languageOf("with space/ünïcode.py")).toBe("python");
  });
  it("rejects unknown languages with a clear message", () => {
    expect(() => new LanguageSet(["cobol"])).toThrow(/unknown language 'cobol'/);
  });
});

describe("ids and sizes", () => {
  it("follows the published id pattern", () => {
    expect(sampleId("mockito/mockito", "merge", 2)).toBe("mockito_mockito_merge_0002");
    expect(sampleId("a-b/c.d", "file_commit_chain", 12)).toBe("a_b_c_d_file_commit_chain_0012");
    expect(idPrefix("x y/z")).toBe("x_y_z");
  });
  it("slugs names as Python's re.sub(r\"[^\\w]+\", \"_\", name).strip(\"_\") does, Unicode letters and digits included", () => {
    expect(sampleId("Kav-K/GPTDiscord", "merge", 0)).toBe("Kav_K_GPTDiscord_merge_0000");
    expect(idPrefix("Kotlin/kotlinx.serialization")).toBe("Kotlin_kotlinx_serialization");
    // Expected values printed by CPython 3 for the same names.
    expect(idPrefix("_x-/ü.b_")).toBe("x_ü_b");
    expect(idPrefix("日本/repo²")).toBe("日本_repo²");
    expect(idPrefix("o\u0301k/a")).toBe("o_k_a");
    expect(idPrefix("--a__b--/c")).toBe("a__b_c");
  });
  it("classifies project size by lines of code", () => {
    expect(projectSizeOf(999)).toBe("tiny");
    expect(projectSizeOf(1000)).toBe("small");
    expect(projectSizeOf(99_999)).toBe("medium");
    expect(projectSizeOf(100_000)).toBe("large");
    expect(projectSizeOf(1_000_000)).toBe("huge");
  });
});

describe("repository facts", () => {
  it("reads owner/repo from remote URLs", () => {
    expect(nameFromRemoteUrl("https://github.com/mockito/mockito.git")).toBe("mockito/mockito");
    expect(nameFromRemoteUrl("git@github.com:JetBrains/kotlin.git")).toBe("JetBrains/kotlin");
    expect(nameFromRemoteUrl("ssh://git@host:22/owner/name/")).toBe("owner/name");
    expect(nameFromRemoteUrl("file:///srv/git/team/tool.git")).toBe("team/tool");
    expect(nameFromRemoteUrl("lonely")).toBeNull();
  });
  it("recognises common licenses", () => {
    expect(detectLicense("MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy")).toBe("MIT");
    expect(detectLicense("Apache License\n Version 2.0, January 2004")).toBe("Apache-2.0");
    expect(
      detectLicense("Redistribution and use in source and binary forms ... 3. Neither the name of the copyright holder"),
    ).toBe("BSD-3-Clause");
    expect(detectLicense("Redistribution and use in source and binary forms, with or without modification")).toBe("BSD-2-Clause");
    expect(detectLicense("GNU GENERAL PUBLIC LICENSE\n Version 3, 29 June 2007")).toBe("GPL-3.0");
    expect(detectLicense("All rights reserved.")).toBeNull();
  });
  it("normalises metadata exports of several shapes", () => {
    const gh = normalizeMetadata({
      stargazers_count: 1500,
      license: { spdx_id: "MIT" },
      topics: ["git", "agents"],
      created_at: "2020-01-01T00:00:00Z",
      archived: false,
      fork: false,
      language: "Python",
    });
    expect(gh).toMatchObject({ stargazers: 1500, license: "MIT", topics: "git;agents", archived: false, language: "Python" });
    const flat = normalizeMetadata({ stars: "12", license: "Apache-2.0", topics: "a;b", contributors: [1, 2, 3] });
    expect(flat).toMatchObject({ stargazers: 12, license: "Apache-2.0", topics: "a;b", contributors: 3 });
    expect(() => normalizeMetadata([1, 2])).toThrow(/JSON object/);
  });
});

/** A hex id standing for `name` (its code units, padded), so that graphs read like the drawing. */
const hex = (name: string): string => Buffer.from(name).toString("hex").padEnd(40, "0");

describe("childrenFirst", () => {
  it("feeds every merge before its ancestors, whatever order the graph lists them in", () => {
    // a - b - M1 - c - M2 - M3 ; x joins at M1, M1 again at M3 (a second path to it); listed oldest first.
    const drawing: [string, string[]][] = [
      ["a", []],
      ["x", ["a"]],
      ["b", ["a"]],
      ["M1", ["b", "x"]],
      ["c", ["M1"]],
      ["y", ["b"]],
      ["M2", ["c", "y"]],
      ["M3", ["M2", "M1"]],
    ];
    const graph = CommitGraph.build(drawing.map(([name, parents]) => ({ oid: hex(name), parents: parents.map(hex), time: 1 })));
    const merges = ["M1", "M2", "M3"];
    const order = childrenFirst(graph, new Set(merges.map((m) => graph.index(hex(m)))));
    expect([...order].sort()).toEqual(merges.map(hex).sort());
    expect(order.indexOf(hex("M3"))).toBeLessThan(order.indexOf(hex("M2")));
    expect(order.indexOf(hex("M2"))).toBeLessThan(order.indexOf(hex("M1")));
  });
});

describe("CommitGraph", () => {
  it("numbers commits in the order given and parents outside the history after them", () => {
    // "s" is cut away (a shallow boundary's parent): it is named but not a commit of the graph.
    const graph = CommitGraph.build([
      { oid: hex("m"), parents: [hex("c"), hex("s")], time: 30 },
      { oid: hex("c"), parents: [hex("r")], time: 20 },
      { oid: hex("r"), parents: [], time: -5 },
    ]);
    expect(graph.size).toBe(3);
    expect([hex("m"), hex("c"), hex("r")].map((o) => graph.index(o))).toEqual([0, 1, 2]);
    const s = graph.index(hex("s"));
    expect(s).toBe(3);
    expect(graph.has(s)).toBe(false);
    expect(graph.oid(s)).toBe(hex("s"));
    expect([graph.parentCount(0), graph.parent(0, 0), graph.parent(0, 1), graph.parent(0, 2)]).toEqual([2, 1, 3, -1]);
    expect([graph.parentCount(2), graph.parent(2, 0), graph.time(2), graph.time(0)]).toEqual([0, -1, -5, 30]);
    expect(graph.index(hex("zz"))).toBe(-1);
    expect(graph.index("not an id")).toBe(-1);
    expect(graph.index(hex("m").slice(0, 39) + "g")).toBe(-1);
  });

  it("finds every one of many ids, SHA-256 ones too", () => {
    const ids = Array.from({ length: 5000 }, (_, i) => (i * 2654435761 >>> 0).toString(16).padStart(8, "0").repeat(8));
    const graph = CommitGraph.build(ids.map((oid, i) => ({ oid, parents: i > 0 ? [ids[i - 1] as string] : [], time: i })));
    expect(ids.every((oid, i) => graph.index(oid) === i && graph.oid(i) === oid && graph.parent(i) === i - 1)).toBe(true);
  });
});
