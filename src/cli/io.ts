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

export function listOption(value: string): string[] {
  return value
    .split(",")
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
}
