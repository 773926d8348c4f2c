import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { XMLParser } from "fast-xml-parser";

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

interface XmlRules {
  root: string;
  time_pattern: string;
  elements: Record<string, { attributes: Record<string, "string" | "time">; required: string[]; children: string[]; text: boolean }>;
}

type OrderedNode = Record<string, unknown> & { ":@"?: Record<string, string> };

/**
 * A validator of XML against the element rules kept in test/export/schemas/junit-10.facts.json (Jenkins'
 * JUnit schema as data; see its $comment): the root, each element's attributes (known, required, the
 * time pattern), its child elements, and text only where the schema allows it. Returns the problems found.
 */
export function junitValidator(): (xml: string) => string[] {
  const rules = JSON.parse(readFileSync(path.join(here, "schemas", "junit-10.facts.json"), "utf8")) as XmlRules;
  const time = new RegExp(rules.time_pattern);
  const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: "", ignoreDeclaration: true, trimValues: true });
  return (xml) => {
    const problems: string[] = [];
    const walk = (nodes: OrderedNode[], parent: string | null, where: string): void => {
      for (const node of nodes) {
        const name = Object.keys(node).find((k) => k !== ":@") ?? "";
        if (name === "#text") {
          if (parent !== null && !rules.elements[parent]?.text) problems.push(`${where}: text in <${parent}>`);
          continue;
        }
        const rule = rules.elements[name];
        const at = `${where}/${name}`;
        if (!rule) {
          problems.push(`${at}: no such element`);
          continue;
        }
        if (parent === null ? name !== rules.root : !rules.elements[parent]?.children.includes(name)) problems.push(`${at}: not allowed in ${parent ?? "the document"}`);
        const attrs = node[":@"] ?? {};
        for (const [k, v] of Object.entries(attrs)) {
          const kind = rule.attributes[k];
          if (!kind) problems.push(`${at}: attribute ${k} is not allowed`);
          else if (kind === "time" && !time.test(v)) problems.push(`${at}: ${k}="${v}" is not a time`);
        }
        for (const k of rule.required) if (attrs[k] === undefined) problems.push(`${at}: attribute ${k} is missing`);
        walk((node[name] as OrderedNode[]) ?? [], name, at);
      }
    };
    walk(parser.parse(xml) as OrderedNode[], null, "");
    return problems;
  };
}
