import { describe, expect, it } from "vitest";
import { formatCsv, parseCsv } from "../../src/dataset/formats/csv.js";

describe("parseCsv", () => {
  it("reads plain, quoted, multi-line and empty fields", () => {
    const text = 'a,b,c\n1,"x, y","say ""hi"""\r\n2,"two\nlines",\n3,"",z';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ["a", "b", "c"] },
      { line: 2, fields: ["1", "x, y", 'say "hi"'] },
      { line: 3, fields: ["2", "two\nlines", null] },
      { line: 5, fields: ["3", "", "z"] },
    ]);
  });

  it("skips a byte-order mark and blank lines", () => {
    expect(parseCsv("\uFEFFid\n\nx\n")).toEqual([
      { line: 1, fields: ["id"] },
      { line: 3, fields: ["x"] },
    ]);
  });

  it.each([
    ['a\n"open', "unterminated quoted field (line 2)"],
    ['a\n"x"y', "unexpected text after a closing quote (line 2)"],
    ['a\nx"y', "quote inside an unquoted field (line 2)"],
  ])("rejects %j", (text, message) => {
    expect(() => parseCsv(text)).toThrow(message);
  });

  it("round-trips through formatCsv, keeping null and empty apart", () => {
    const rows = [
      ["id", "text", "none"],
      ["1", 'quote " and , comma', null],
      ["2", "", "multi\r\nline"],
      ["3", " spaced ", "é"],
    ];
    expect(parseCsv(formatCsv(rows)).map((r) => r.fields)).toEqual(rows);
  });
});
