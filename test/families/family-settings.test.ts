import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { familyScenarioSettings, ticketScenarioSettings } from "../../src/families/options.js";
import { families, registerFamily, unregisterFamily } from "../../src/families/registry.js";
import { RunConfigSchema } from "../../src/runs/config.js";
import { declareFamilySettings, familySettings, parseRunSpec, specFromOptions, specIdentity, type FamilySetting } from "../../src/runs/spec.js";
import type { JobTicket } from "../../src/runs/ticket.js";
import type { SweOptions } from "../../src/swe/options.js";

/*
 * The families' settings as fragments of the run spec: declared with the family (FamilyCli.settings),
 * nested under the family's key, made from the options of the verbs that take them, recorded in
 * run.json's spec and identity.spec, and made into live scenario settings from a spec wherever it is.
 */

/** The options each verb takes of the families' settings, as `FamilyCli.options(verb)` gave them before they were settings. */
const OPTIONS_BY_VERB = {
  run: ["predictions", "predictions-out", "hints", "env-spec", "env-setup", "extract-with", "test-timeout", "setup-timeout", "attempts", "related-tests"],
  env: ["hints", "env-spec", "env-setup", "extract-with", "test-timeout", "setup-timeout"],
  mcp: ["hints", "env-spec", "env-setup", "extract-with", "test-timeout", "setup-timeout"],
  harbor: ["env-spec", "test-timeout", "setup-timeout"],
} as const;

/** A setting of a test family (`namespace` its key), an option of `run`. */
function setting(namespace: string, fields: Partial<FamilySetting<boolean>> = {}): FamilySetting<boolean> {
  return { namespace, key: "loud", option: `${namespace}-loud`, help: "be loud", schema: z.boolean(), default: false, identity: true, request: "operator", kind: "choice", group: namespace, verbs: ["run"], ...fields };
}

describe("the families' settings", () => {
  it("are the options of the verbs they name, in registry order", () => {
    for (const [verb, options] of Object.entries(OPTIONS_BY_VERB)) {
      expect(familySettings().filter((s) => (s.verbs as readonly string[]).includes(verb)).map((s) => s.option), verb).toEqual(options);
    }
    expect(familySettings("swe").map((s) => s.key)).toEqual(["predictions", "predictions_out", "hints", "env_spec", "env_setup", "extract_with", "test_timeout_s", "setup_timeout_s"]);
    expect(familySettings("commit0").map((s) => s.key)).toEqual(["attempts", "related_tests"]);
  });

  it("nest under their family's key in the spec, files made absolute; only identity settings off their defaults are in identity.spec", () => {
    const spec = specFromOptions({ hints: true, envSpec: path.resolve("envs.yaml"), testTimeout: 60, attempts: 2 }, { families: true });
    expect(spec.swe).toEqual({
      hints: true,
      env_spec: path.resolve("envs.yaml"),
      env_setup: null,
      extract_with: null,
      test_timeout_s: 60,
      setup_timeout_s: 1800,
      predictions: null,
      predictions_out: null,
    });
    expect(spec.commit0).toEqual({ attempts: 2, related_tests: null });
    expect(specIdentity(spec)).toEqual({ swe: { hints: true } });
    // A verb that runs no family's attempts (worker, a2a serve) has no fragment.
    expect(specFromOptions({ hints: true })).not.toHaveProperty("swe");
    const parse = familySettings("swe").find((s) => s.key === "predictions")?.parse;
    expect(parse?.("preds.jsonl", "--predictions")).toBe(path.resolve("preds.jsonl"));
  });

  it("are checked where a spec is read: an unknown key or a wrong type in a fragment is refused in one line", () => {
    expect(() => parseRunSpec({ swe: { hint: true } }, "ticket spec", "BAD_TICKET")).toThrow(/^ticket spec\.swe: Unrecognized key: "hint"$/);
    expect(() => parseRunSpec({ swe: { test_timeout_s: "long" } }, "ticket spec", "BAD_TICKET")).toThrow(/^ticket spec\.swe\.test_timeout_s: /);
    expect(() => parseRunSpec({ nofamily: {} }, "ticket spec", "BAD_TICKET")).toThrow(/Unrecognized key: "nofamily"/);
    expect(parseRunSpec({ swe: { hints: true } }, "ticket spec", "BAD_TICKET").swe).toMatchObject({ hints: true, test_timeout_s: 900 });
  });

  it("become live scenario settings from a spec, wherever it is: the models made, COMMIT0 reading SWE's environment settings", () => {
    const spec = specFromOptions({ hints: true, extractWith: "extractor-model", testTimeout: 60, relatedTests: "test_{stem}.py" }, { families: true });
    const settings = familyScenarioSettings(spec, "run", { isolation: undefined, model: undefined, envs: null });
    const swe = settings.swe as SweOptions;
    expect(swe).toMatchObject({ hints: true, testTimeoutSeconds: 60, setupTimeoutSeconds: 1800, envModel: null });
    expect(typeof swe.extractWith?.complete).toBe("function");
    expect(settings.commit0).toMatchObject({ testTimeoutSeconds: 60, relatedTests: "test_{stem}.py" });
    // A queue worker makes them from the ticket's spec (through JSON, as Redis carries it), with the ticket's model and envs.
    const ticket = JSON.parse(JSON.stringify({ spec, agent: { model: null }, envs: null })) as JobTicket;
    const fromTicket = ticketScenarioSettings(ticket, undefined);
    expect(fromTicket.swe).toMatchObject({ hints: true, testTimeoutSeconds: 60 });
    expect(typeof (fromTicket.swe as SweOptions).extractWith?.complete).toBe("function");
    expect(() => ticketScenarioSettings({ ...ticket, spec: { swe: { env_setup: "llm" } } }, undefined)).toThrow(/--env-setup llm needs --model/);
  });

  it("of a run made before they were in the spec (identity.swe) are read as identity.spec.swe", () => {
    const identity = { samples: "/s.jsonl", agent: "predictions", model: null, where: null };
    const old = (swe: unknown) => RunConfigSchema.parse({ schema_version: 2, gitgood_version: "0", created_at: "", identity: { ...identity, swe }, limits: { jobs: null } }).identity;
    expect(old({ hints: false, predictions: "/p.jsonl" })).toEqual({ ...identity, spec: { swe: { predictions: "/p.jsonl" } } });
    expect(old({ hints: true, predictions: null })).toEqual({ ...identity, spec: { swe: { hints: true } } });
    expect(old({ hints: false, predictions: null })).toEqual(identity);
  });

  it("are declared with the family, and a family whose setting is not a family's choice of its own is refused whole", () => {
    const family = (name: string, s: FamilySetting) => ({ name, scenarios: [], cli: { settings: [s] } });
    expect(() => registerFamily(family("LOUD", setting("loud", { option: "timeout" })))).toThrow(/option --timeout is declared twice/);
    expect(() => registerFamily(family("LOUD", setting("other")))).toThrow(/declared under 'other', not its family's 'loud'/);
    expect(() => registerFamily(family("LOUD", setting("loud", { kind: "limit" })))).toThrow(/must be a choice of the run/);
    expect(families().map((f) => f.name)).not.toContain("LOUD");
    expect(() => declareFamilySettings("swe", [])).toThrow(/the spec has a 'swe' already/);
    registerFamily(family("LOUD", setting("loud")));
    try {
      expect(specFromOptions({ loudLoud: true }, { families: true }).loud).toEqual({ loud: true });
    } finally {
      unregisterFamily("LOUD");
    }
    expect(specFromOptions({}, { families: true })).not.toHaveProperty("loud");
  });
});
