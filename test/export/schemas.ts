import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";

const here = path.dirname(fileURLToPath(import.meta.url));

/** A validator of one of the published schemas kept in test/export/schemas (see each file's $comment for its source). */
export function schemaValidator(file: string, def?: string): (value: unknown) => string[] {
  const schema = JSON.parse(readFileSync(path.join(here, "schemas", file), "utf8")) as Record<string, unknown>;
  // Inspect's OpenAPI schemas use `discriminator` and formats; neither changes what is valid here.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ ...schema, $id: `https://gitgood.test/${file}` });
  const validate = ajv.getSchema(`https://gitgood.test/${file}${def ? `#/$defs/${def}` : ""}`);
  if (!validate) throw new Error(`no schema ${file} ${def ?? ""}`);
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`));
}
