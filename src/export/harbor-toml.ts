/** A TOML value gitgood writes into task.toml: text, a number, a flag, or a list of text. */
export type TomlValue = string | number | boolean | readonly string[];

/** A TOML basic string: quotes, backslashes and control characters escaped, anything else as it is. */
function tomlString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

function tomlValue(value: TomlValue): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`TOML has no ${value}`);
    return String(value);
  }
  return `[${value.map(tomlString).join(", ")}]`;
}

/** A float TOML writes with its point (Harbor's `timeout_sec` fields are floats). */
function tomlFloat(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

/** A TOML document: top-level keys, then one `[table]` per section, keys in the order given. */
export function tomlDocument(top: Record<string, TomlValue>, tables: readonly [string, Record<string, TomlValue | { float: number }>][]): string {
  const line = (key: string, value: TomlValue | { float: number }): string =>
    `${/^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key)} = ${typeof value === "object" && !Array.isArray(value) && "float" in value ? tomlFloat(value.float) : tomlValue(value as TomlValue)}\n`;
  let out = Object.entries(top).map(([k, v]) => line(k, v)).join("");
  for (const [name, keys] of tables) out += `\n[${name}]\n${Object.entries(keys).map(([k, v]) => line(k, v)).join("")}`;
  return out;
}
