/** The `code` of a Node.js system error (`ENOENT`, `EEXIST`, …), or undefined for anything else. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  const code = err.code;
  return typeof code === "string" ? code : undefined;
}
