import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CatFile } from "../../src/git/catfile.js";
import { Repo } from "../../src/git/repo.js";
import { treeChanges } from "../../src/git/trees.js";
import { diffTreesVia } from "../../src/git/treewalk.js";
import { useFixtures } from "../helpers/fixture.js";

const fixture = useFixtures();

describe("diffTreesVia", () => {
  it("answers what diff-tree -r answers, in git's order, both ways, and fails on a missing tree", async () => {
    const f = fixture();
    const put = (file: string, content: string) => {
      mkdirSync(path.dirname(path.join(f.dir, file)), { recursive: true });
      writeFileSync(path.join(f.dir, file), content);
    };
    const before = f.commit("before", {
      "same.py": "s\n",
      "src/deep/keep.py": "k\n",
      "src/deep/edit.py": "1\n",
      "gone.py": "g\n",
      "gone-dir/a/b.py": "b\n",
      "run.sh": "echo\n",
      "link-me.txt": "t\n",
      d: "file that becomes a folder\n",
      "d.txt": "dot sorts before slash\n",
      "d-x": "dash too\n",
      "ü.py": "u\n",
      "e/x.py": "x\n",
      "\u{1F600}.py": "four bytes in UTF-8, a surrogate pair in JavaScript\n",
    });
    f.write({ "src/deep/edit.py": "2\n", "gone.py": null, "gone-dir/a/b.py": null, "d": null, "link-me.txt": null });
    rmSync(path.join(f.dir, "gone-dir"), { recursive: true, force: true });
    put("d/inner.py", "now a folder\n");
    put("new/x/y.py", "y\n");
    put("ü.py", "u2\n");
    put("d0", "zero sorts after slash\n");
    put("e.py", "between e and e/ in git's order\n");
    put("e/x.py", "x2\n");
    f.write({ "\u{1F600}.py": null });
    put("\uFF21.py", "before the emoji in bytes, after it in UTF-16\n");
    chmodSync(path.join(f.dir, "run.sh"), 0o755);
    symlinkSync("same.py", path.join(f.dir, "link-me.txt"));
    f.git("add", "-A");
    f.git("update-index", "--add", "--cacheinfo", `160000,${before},sub`);
    f.git("commit", "-q", "-m", "after");
    const after = f.head();

    const repo = await Repo.open(f.dir);
    const reader = new CatFile(f.dir);
    try {
      for (const [from, to] of [
        [before, after],
        [after, before],
        [`${before}^{tree}`, after],
      ] as const) {
        const viaGit = await treeChanges(repo, from, to);
        expect(await diffTreesVia(reader, from, to)).toEqual(viaGit);
      }
      const paths = (await diffTreesVia(reader, before, after)).map((c) => `${c.status} ${c.path}`);
      expect(paths).toEqual([
        "D d",
        "A d/inner.py",
        "A d0",
        "A e.py",
        "M e/x.py",
        "D gone-dir/a/b.py",
        "D gone.py",
        "T link-me.txt",
        "A new/x/y.py",
        "M run.sh",
        "M src/deep/edit.py",
        "A sub",
        "M ü.py",
        "A \uFF21.py",
        "D \u{1F600}.py",
      ]);
      expect(await diffTreesVia(reader, before, before)).toEqual([]);
      await expect(diffTreesVia(reader, before, "0123456789012345678901234567890123456789")).rejects.toMatchObject({ code: "GIT_FAILED" });
    } finally {
      await reader.close();
    }
  });
});
