/**
 * main.md, the roadmap every memory branch shares: the goal, milestones reached, and what is left to
 * do. Users may edit it freely; gitgood only appends list items under its level-2 headings.
 */

export const GOAL = "Goal";
export const MILESTONES = "Milestones";
export const TODO = "To-do";

export function renderRoadmap(goal: string): string {
  return [`# Roadmap`, ``, `## ${GOAL}`, ``, goal.trim() || "(not stated yet)", ``, `## ${MILESTONES}`, ``, `## ${TODO}`, ``].join(
    "\n",
  );
}

function headingIndex(lines: readonly string[], title: string): number {
  return lines.findIndex((l) => l.trimEnd() === `## ${title}`);
}

function sectionEnd(lines: readonly string[], start: number): number {
  for (let i = start + 1; i < lines.length; i++) if (/^#{1,2} /.test(lines[i] ?? "")) return i;
  return lines.length;
}

/** The text under `## title` (up to the next heading of level 1 or 2), trimmed; null when absent. */
export function sectionText(md: string, title: string): string | null {
  const lines = md.split("\n");
  const at = headingIndex(lines, title);
  if (at < 0) return null;
  return lines.slice(at + 1, sectionEnd(lines, at)).join("\n").trim();
}

/** Appends `- item` lines at the end of a section, creating the section at the end when it is missing. */
export function appendItems(md: string, title: string, items: readonly string[]): string {
  if (items.length === 0) return md;
  const bullets = items.map((i) => `- ${i.trim().replace(/\n+/g, " ")}`);
  const lines = md.split("\n");
  const at = headingIndex(lines, title);
  if (at < 0) {
    const body = md.replace(/\n*$/, "");
    return `${body}${body ? "\n\n" : ""}## ${title}\n\n${bullets.join("\n")}\n`;
  }
  let end = sectionEnd(lines, at);
  while (end > at + 1 && (lines[end - 1] ?? "").trim() === "") end--;
  const insert = end === at + 1 ? ["", ...bullets] : bullets;
  const after = lines.slice(end);
  const tail = after.length > 0 && after.some((l) => l !== "") ? ["", ...dropLeadingBlank(after)] : [""];
  return [...lines.slice(0, end), ...insert, ...tail].join("\n");
}

function dropLeadingBlank(lines: readonly string[]): string[] {
  let i = 0;
  while (i < lines.length && (lines[i] ?? "").trim() === "") i++;
  return lines.slice(i);
}
