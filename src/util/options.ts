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
