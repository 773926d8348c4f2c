import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { shellQuote } from "../../src/agents/mcp-config.js";
import { mulberry32 } from "../../src/dataset/random.js";

/** Characters a word is drawn from: everything a shell gives a meaning to, blanks, line ends, a control character and non-ASCII text. */
const ALPHABET = [..." \t\n\r'\"\\$`!~#&|;<>()[]{}*?=%^,.:/@+-_aZ09", "\u0001", "é", "\u00a0", "日", "😀"];

/** A word of 0-12 characters from the alphabet, or a word shaped like an assignment. */
function word(random: () => number): string {
  let w = "";
  const length = Math.floor(random() * 13);
  for (let i = 0; i < length; i++) w += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return random() < 0.1 ? `A${w}=${w}` : w;
}

/** The arguments `sh` gives `printf` for a command line: the oracle. */
function shellArgs(line: string): string[] {
  const r = spawnSync("sh", ["-c", `printf '%s\\0' ${line}`], { env: { PATH: process.env.PATH, HOME: "/home-of-sh" }, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split("\0").slice(0, -1);
}

describe("shell quoting (seeded fuzz against sh)", () => {
  it("gives sh back the exact words, however odd", () => {
    const random = mulberry32(36);
    for (let batch = 0; batch < 8; batch++) {
      const words = Array.from({ length: 250 }, () => word(random));
      expect(shellArgs(words.map(shellQuote).join(" "))).toEqual(words);
    }
  });

  it("keeps a word that looks like an assignment a word at the start of a command", () => {
    const r = spawnSync("sh", ["-c", `${shellQuote("A=1")} 2>/dev/null; printf %s "\${A-unset}"`], { env: { PATH: process.env.PATH }, encoding: "utf8" });
    expect(r.stdout).toBe("unset");
  });
});
