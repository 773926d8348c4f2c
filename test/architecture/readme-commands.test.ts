import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { verbs } from "../../src/cli/verbs.js";
import { gitgood } from "../helpers/cli.js";
import { buildMergeFixture } from "../helpers/scenarios.js";

/**
 * The documentation's commands stay true. Every `gitgood …` command line of the shell blocks of the README
 * and of the pages under docs/ (the README's reference moved there) names a verb (and
 * subcommand) that exists and options that verb has; the ones that run offline on a small repository
 * (`mine` but for `--type swe`, `dataset stats`, `run … --dry-run`) are run as written, with the
 * repository they name replaced by a fixture, in a scratch directory.
 */

const root = path.resolve(import.meta.dirname, "../..");
/** The README and the pages of docs/ but the generated option reference (docs/cli.md): where the commands a reader copies are. */
const PAGES = ["README.md", ...readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md") && f !== "cli.md").sort().map((f) => `docs/${f}`)];

type Word = string | { op: string };

/** A shell line as words (quotes removed) and operators (`|`, `&&`, `>`, `#` …), enough for the README's lines. */
function shellWords(line: string): Word[] {
  const out: Word[] = [];
  let word: string | null = null;
  let i = 0;
  while (i < line.length) {
    const c = line[i] ?? "";
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      word = (word ?? "") + line.slice(i + 1, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end + 1;
    } else if (/\s/.test(c)) {
      if (word !== null) out.push(word);
      word = null;
      i += 1;
    } else if (word === null && "|;&<>#".includes(c)) {
      const op = /^(\|\||\||;|&&|&|2>&1|2>|>>|>|<|#)/.exec(line.slice(i))?.[0] ?? c;
      out.push({ op });
      i += op.length;
    } else {
      word = (word ?? "") + c;
      i += 1;
    }
  }
  if (word !== null) out.push(word);
  return out;
}

/** The arguments of every `gitgood` (or `npx gitgood`) command in a Markdown text's shell blocks, in order. */
function readmeCommands(text: string): string[][] {
  const commands: string[][] = [];
  const lines = text.split("\n");
  let lang: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)/.exec(lines[i] ?? "");
    if (fence) {
      lang = lang === null ? (fence[1] ?? "") : null;
      continue;
    }
    if (lang === null || !["sh", "console", "bash", "shell"].includes(lang)) continue;
    let line = lines[i] ?? "";
    // In a console block only the prompt lines are commands; the rest is their output.
    if (lang === "console") {
      if (!line.startsWith("$ ")) continue;
      line = line.slice(2);
    }
    while (line.endsWith("\\") && i + 1 < lines.length) line = `${line.slice(0, -1)} ${(lines[++i] ?? "").trim()}`;
    const words = shellWords(line);
    words.forEach((w, k) => {
      const before = words[k - 1];
      if (w !== "gitgood" || (typeof before === "string" && before !== "npx")) return;
      const args: string[] = [];
      for (let m = k + 1; m < words.length; m++) {
        const next = words[m];
        if (typeof next !== "string") break;
        args.push(next);
      }
      commands.push(args);
    });
  }
  return commands;
}

const commands = PAGES.flatMap((page) => readmeCommands(readFileSync(path.join(root, page), "utf8")));
const fixture = buildMergeFixture().fx;
afterAll(() => fixture.remove());

const helpCache = new Map<string, string>();
async function helpWith(plugins: readonly string[], words: readonly string[]): Promise<{ code: number; text: string }> {
  const key = [...plugins, ...words].join(" ");
  const known = helpCache.get(key);
  if (known !== undefined) return { code: 0, text: known };
  const r = await gitgood([...plugins, ...words, "--help"]);
  if (r.code === 0) helpCache.set(key, r.stdout);
  return { code: r.code, text: r.stdout };
}

describe("the gitgood commands of the README and docs/", () => {
  it("are found in its shell blocks", () => {
    expect(commands.length).toBeGreaterThan(50);
    expect(commands).toContainEqual(["mine", "/tmp/synthetic", "-o", "samples.jsonl"]);
    expect(readmeCommands("```console\n$ npx gitgood report runs/x --json | jq .totals   # a note\n{\"gitgood\": 1}\n```\n")).toEqual([["report", "runs/x", "--json"]]);
    expect(readmeCommands("```sh\nnpm ci && npx gitgood bench \\\n  --dry-run\n```\nnpx gitgood run outside-a-block\n")).toEqual([["bench", "--dry-run"]]);
  });

  it("name verbs and options that exist", async () => {
    const wrong: string[] = [];
    for (const written of commands) {
      // `--plugin MODULE` is the program's own option, wherever it stands; a plug-in of this checkout is loaded
      // for the help (its options are then known), one that is only a name in an example leaves the options unchecked.
      const plugins = written.flatMap((a, i) => (a === "--plugin" ? [written[i + 1] ?? ""] : []));
      const args = written.filter((a, i) => a !== "--plugin" && written[i - 1] !== "--plugin");
      const loadable = plugins.every((p) => p.startsWith("./") && existsSync(path.join(root, p)));
      const helpOf = (words: readonly string[]) => helpWith(loadable ? plugins.flatMap((p) => ["--plugin", p]) : [], words);
      const [verb = ""] = args;
      // Help for a name that is no verb is the program's own, so the verb is looked up in the table.
      const verbHelp = await helpOf([verb]);
      if (verbHelp.code !== 0 || !verbs().some((v) => v.name === verb)) {
        wrong.push(`gitgood ${args.join(" ")}: no verb ${verb}`);
        continue;
      }
      // A verb with subcommands (dataset, export, memory, a2a) is asked for the subcommand's help.
      const sub = args[1];
      const hasSub = /\nCommands:\n/.test(verbHelp.text) && sub !== undefined && !sub.startsWith("-");
      const help = hasSub ? await helpOf([verb, sub]) : verbHelp;
      const listed = (name: string) => new RegExp(`\\nCommands:\\n[^]*^ {2}${name}\\b`, "m").test(verbHelp.text);
      if (help.code !== 0 || (hasSub && !listed(sub))) {
        wrong.push(`gitgood ${args.join(" ")}: no subcommand ${sub ?? ""}`);
        continue;
      }
      if (!loadable) continue;
      // A subcommand also takes its verb's options (memory's -C).
      const known = hasSub ? `${help.text}\n${verbHelp.text}` : help.text;
      for (const flag of args.filter((a) => /^--?[a-zA-Z]/.test(a)).map((a) => a.split("=")[0] ?? a)) {
        if (!new RegExp(`(^|[\\s,])${flag.replace(/[-]/g, "\\-")}([\\s,=]|$)`, "m").test(known)) wrong.push(`gitgood ${args.join(" ")}: no option ${flag}`);
      }
    }
    expect(wrong).toEqual([]);
    // Loading every verb's module in-process is most of the time (a few seconds on an idle machine).
  }, 300_000);

  it("that run offline (mine, dataset stats, run --dry-run) run on a fixture as written", async () => {
    const cwd = fixture.scratch("readme");
    // The repository a command names is the fixture; everything else is as the README writes it.
    const onFixture = (args: readonly string[]): string[] => {
      const out = [...args];
      if (out[0] === "mine") out[1] = fixture.dir;
      for (let i = 0; i < out.length - 1; i++) {
        if (out[i] === "--repo" || out[i] === "--repos") {
          out[i] = "--repo";
          out[i + 1] = fixture.dir;
        }
      }
      return out;
    };
    const runnable = [
      ...commands.filter((c) => c[0] === "mine" && !c.includes("swe")),
      ...commands.filter((c) => c[0] === "dataset" && c[1] === "stats"),
      ...commands.filter((c) => c[0] === "run" && c.includes("--dry-run")),
    ];
    expect(runnable.length).toBeGreaterThanOrEqual(4);
    for (const args of runnable) {
      const r = await gitgood(onFixture(args), { cwd });
      expect(r.code, `gitgood ${args.join(" ")}: ${r.stderr}`).toBe(0);
      const out = args[args.indexOf("-o") + 1];
      if (args[0] === "mine" && out !== undefined) expect(existsSync(path.join(cwd, out)), out).toBe(true);
    }
  }, 120_000);
});
