import { lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The attributes that make git keep a work tree's files exactly as the repository stores them: no
 * end-of-line conversion (`text`, and with it `eol`), no `$Id$` expansion, no filter, no re-encoding, no diff driver.
 * Written to a git directory's `info/attributes`, which outranks every `.gitattributes` of the project.
 *
 * Why a Git-work sandbox needs it: a project whose `.gitattributes` asks for a conversion its own
 * commits do not follow (mockito's `gradlew.bat text eol=crlf` over a blob that holds CRLF) has files git
 * itself finds changed right after a checkout, whenever the checkout was quick enough that git compares
 * contents instead of trusting the file's time (racy entries). `git rebase -i` then refuses to start,
 * `git status` shows a change nobody made, and an agent's `git add -A` commits one. With conversions
 * off, a checkout writes the stored bytes and reads them back unchanged, so the starting point is clean
 * every time and what an agent commits is what it wrote.
 *
 * `!diff` leaves the `diff` attribute unspecified for every file, whatever a `.gitattributes` (the
 * project's or one an agent writes) says: git tells text from binary by the bytes and uses its plain hunk
 * headers, so every diff shown in the sandbox, to the agent and to its own git, reads as gitgood's patches
 * of commits read anywhere (src/git/no-attributes.ts).
 */
export const STORED_BYTES_ATTRIBUTES = "* -text -ident -filter -working-tree-encoding !diff\n";

function attributesFile(gitDir: string): string {
  return path.join(gitDir, "info", "attributes");
}

/** Writes `info/attributes` of `gitDir` (gitgood's own, just made) so that git converts no file (see STORED_BYTES_ATTRIBUTES). */
export function keepStoredBytes(gitDir: string): void {
  mkdirSync(path.join(gitDir, "info"), { recursive: true });
  writeFileSync(attributesFile(gitDir), STORED_BYTES_ATTRIBUTES, { flag: "wx" });
}

/**
 * Whether the attributes file of `gitDir` adds nothing that changes the bytes git stores or writes: there
 * is none, or it is exactly the one `keepStoredBytes` writes (a plain file, not a link).
 */
export function attributesKeepBytes(gitDir: string): boolean {
  const file = attributesFile(gitDir);
  try {
    if (!lstatSync(file).isFile()) return false;
    return readFileSync(file, "utf8") === STORED_BYTES_ATTRIBUTES;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}
