import { GitGoodError } from "../errors.js";

/** Parses a whole number option, with a one-line error naming the option. */
export function intOption(name: string): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
      throw new GitGoodError("BAD_OPTION", `${name} takes a whole number, not '${value}'`);
    }
    return n;
  };
}

/** Parses a whole number option that must be at least 1. */
export function positiveIntOption(name: string): (value: string) => number {
  const parse = intOption(name);
  return (value: string) => {
    const n = parse(value);
    if (n < 1) throw new GitGoodError("BAD_OPTION", `${name} must be at least 1, not ${value}`);
    return n;
  };
}

/** Parses a number option in [min, max]. */
export function numberOption(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n) || n < min || n > max) {
      throw new GitGoodError("BAD_OPTION", `${name} takes a number from ${min} to ${max}, not '${value}'`);
    }
    return n;
  };
}

/** Parses a comma-separated list of names, as written: model names such as `Qwen/Qwen2.5-72B-Instruct` keep their case. */
export function listOption(value: string): string[] {
  return value
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
}

/** Parses a comma-separated list of case-insensitive keywords (languages), lower-cased. */
export function keywordListOption(value: string): string[] {
  return listOption(value).map((v) => v.toLowerCase());
}

/** Collects the values of a repeatable option (`--allow-read A --allow-read B`), in order. */
export function repeatable(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Parses a date option (`2025-06-01`, `2025-06-01T12:00:00Z`) into seconds since the epoch. */
export function dateOption(name: string): (value: string) => number {
  return (value: string) => {
    const ms = Date.parse(value);
    if (!Number.isFinite(ms)) throw new GitGoodError("BAD_OPTION", `${name} takes a date such as 2025-06-01 or 2025-06-01T12:00:00Z, not '${value}'`);
    return Math.floor(ms / 1000);
  };
}
