import { describe, expect, it } from "vitest";
import { formatPythonLiteral, parsePythonLiteral } from "../../src/dataset/pyliteral.js";

function errorOf(text: string): { message: string; position: unknown } {
  try {
    parsePythonLiteral(text);
  } catch (err) {
    const e = err as Error & { code: string; data: { position: unknown } };
    expect(e.code).toBe("BAD_LITERAL");
    return { message: e.message, position: e.data.position };
  }
  throw new Error(`no error for ${text}`);
}

describe("parsePythonLiteral", () => {
  it("reads True, False and None", () => {
    expect(parsePythonLiteral("True")).toBe(true);
    expect(parsePythonLiteral("False")).toBe(false);
    expect(parsePythonLiteral("None")).toBe(null);
  });

  it("reads integers and floats with signs and exponents", () => {
    expect(parsePythonLiteral("0")).toBe(0);
    expect(parsePythonLiteral("42")).toBe(42);
    expect(parsePythonLiteral("-7")).toBe(-7);
    expect(parsePythonLiteral("+3")).toBe(3);
    expect(parsePythonLiteral("0.83")).toBe(0.83);
    expect(parsePythonLiteral("-1.5")).toBe(-1.5);
    expect(parsePythonLiteral("1.")).toBe(1);
    expect(parsePythonLiteral(".5")).toBe(0.5);
    expect(parsePythonLiteral("1e3")).toBe(1000);
    expect(parsePythonLiteral("2.5E-2")).toBe(0.025);
    expect(parsePythonLiteral("-6.02e+23")).toBe(-6.02e23);
  });

  it("reads strings in both quotes with every escape", () => {
    expect(parsePythonLiteral("'it'")).toBe("it");
    expect(parsePythonLiteral('"it\'s"')).toBe("it's");
    expect(parsePythonLiteral("'it\\'s'")).toBe("it's");
    expect(parsePythonLiteral("'say \"hi\"'")).toBe('say "hi"');
    expect(parsePythonLiteral("'a\\nb\\tc\\rd'")).toBe("a\nb\tc\rd");
    expect(parsePythonLiteral("'back\\\\slash'")).toBe("back\\slash");
    expect(parsePythonLiteral("'\\x41\\x7f'")).toBe("A\x7f");
    expect(parsePythonLiteral("'\\u00e9\\u4e2d'")).toBe("é中");
    expect(parsePythonLiteral("'\\U0001F600'")).toBe("😀");
    expect(parsePythonLiteral("'\\0\\101'")).toBe("\0A");
    expect(parsePythonLiteral("'\\a\\b\\f\\v'")).toBe("\x07\b\f\v");
    expect(parsePythonLiteral("'line\\\ncontinued'")).toBe("linecontinued");
    expect(parsePythonLiteral("'keep \\d as is'")).toBe("keep \\d as is");
    expect(parsePythonLiteral("'naïve 中文'")).toBe("naïve 中文");
    expect(parsePythonLiteral("''")).toBe("");
  });

  it("reads u and r prefixes", () => {
    expect(parsePythonLiteral("u'caf\\u00e9'")).toBe("café");
    expect(parsePythonLiteral("r'a\\nb'")).toBe("a\\nb");
    expect(parsePythonLiteral("r'a\\'b'")).toBe("a\\'b");
  });

  it("reads lists, tuples and dicts, nested, with trailing commas and spaces", () => {
    expect(parsePythonLiteral("[]")).toEqual([]);
    expect(parsePythonLiteral("[1, 'a', None, [True, []]]")).toEqual([1, "a", null, [true, []]]);
    expect(parsePythonLiteral("[1, 2,]")).toEqual([1, 2]);
    expect(parsePythonLiteral("()")).toEqual([]);
    expect(parsePythonLiteral("(1,)")).toEqual([1]);
    expect(parsePythonLiteral("('a', 'b')")).toEqual(["a", "b"]);
    expect(parsePythonLiteral("(5)")).toBe(5);
    expect(parsePythonLiteral("{}")).toEqual({});
    expect(parsePythonLiteral(" { 'a' : 1 ,\n 'b': {'c': ['x', ('y', 2.5)]}, } ")).toEqual({
      a: 1,
      b: { c: ["x", ["y", 2.5]] },
    });
  });

  it("reads a published scenario", () => {
    const text =
      "{'merge_commit_hash': 'aa', 'parents': ['bb', 'cc'], 'number_of_files_with_merge_conflict': 2, " +
      "'total_number_of_merge_conflicts': 3, 'files_in_merge_conflict': ['A.java', 'b/C.kt'], 'flag': False}";
    expect(parsePythonLiteral(text)).toEqual({
      merge_commit_hash: "aa",
      parents: ["bb", "cc"],
      number_of_files_with_merge_conflict: 2,
      total_number_of_merge_conflicts: 3,
      files_in_merge_conflict: ["A.java", "b/C.kt"],
      flag: false,
    });
  });

  it("keeps a __proto__ key as an ordinary key", () => {
    const v = parsePythonLiteral("{'__proto__': 1}") as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });

  it.each([
    ["", "unexpected end of input at position 0", 0],
    ["{'a': 1", "expected ',' or '}' but found end of input at position 7", 7],
    ["{'a' 1}", "expected ':' but found '1' at position 5", 5],
    ["[1 2]", "expected ',' or ']' but found '2' at position 3", 3],
    ["'abc", "unterminated string (opened at 0) at position 4", 4],
    ["'a\nb'", "line break inside a string (opened at 0) at position 2", 2],
    ["true", "unknown name 'true' (only True, False and None are literals) at position 0", 0],
    ["{1: 2}", "dict keys must be strings at position 1", 1],
    ["{'a': 1, 'a': 2}", "duplicate dict key 'a' at position 9", 9],
    ["[1] x", "unexpected 'x' after the value at position 4", 4],
    ["'\\x4'", "truncated \\x escape at position 1", 1],
    ["'\\N{DASH}'", "\\N{...} escapes are not supported at position 1", 1],
    ["007", "integers may not have leading zeros at position 0", 0],
    ["1.2.3", "malformed number at position 0", 0],
    ["12345678901234567890", "integer 12345678901234567890 is too large at position 0", 0],
    ["b'x'", "unknown name 'b' (only True, False and None are literals) at position 0", 0],
    ["(1, 2", "expected ',' or ')' but found end of input at position 5", 5],
    ["__import__('os')", "unknown name '__import__' (only True, False and None are literals) at position 0", 0],
  ])("rejects %j", (text, message, position) => {
    expect(errorOf(text)).toEqual({ message, position });
  });
});

describe("formatPythonLiteral", () => {
  it("writes what repr writes", () => {
    expect(formatPythonLiteral({ a: [1, 0.5, true, false, null], b: "it's" })).toBe(
      "{'a': [1, 0.5, True, False, None], 'b': \"it's\"}",
    );
    expect(formatPythonLiteral("both ' and \"")).toBe("'both \\' and \"'");
    expect(formatPythonLiteral("tab\there\nback\\slash\x01")).toBe("'tab\\there\\nback\\\\slash\\x01'");
  });

  it("round-trips awkward strings", () => {
    const values = ["", "'", '"', "'\"", "\\", "\n\r\t", "\x00\x1f\x7f", "é中😀", "\ud800 lone", "a\\'b"];
    for (const v of values) expect(parsePythonLiteral(formatPythonLiteral(v))).toBe(v);
    const nested = { k: [values, { deeper: [-1.25e-7, 3] }] };
    expect(parsePythonLiteral(formatPythonLiteral(nested))).toEqual(nested);
  });
});
