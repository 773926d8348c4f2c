import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { PLUGIN_API, type PluginRegister } from "./api.js";
import { resolvePlugin } from "./resolve.js";

/** A plug-in to load: as it was named, and the directory a relative path is taken from. */
export interface PluginRequest {
  module: string;
  base: string;
  /** Where it was named, for the error line (`--plugin`, the configuration file). */
  from: string;
}

/** The files loaded in this process: loading one again is nothing. */
const loaded = new Set<string>();

function failed(request: PluginRequest, cause: string): GitGoodError {
  return new GitGoodError("PLUGIN_FAILED", `plug-in ${request.module} (${request.from}): ${cause}`, { module: request.module });
}

/** The register function a module exports: its default export, or `register`. */
function registerOf(exports: Record<string, unknown>): PluginRegister | null {
  if (typeof exports.default === "function") return exports.default as PluginRegister;
  if (typeof exports.register === "function") return exports.register as PluginRegister;
  return null;
}

/**
 * Loads the plug-ins, in order, and calls each one's register function with the registration API, so
 * that whatever reads the registries afterwards sees what they added. Only what is named here is
 * loaded: nothing is looked for in a repository, a sample or a run directory. The first that cannot be
 * found, imported or registered ends the load with one line naming it and the cause.
 */
export async function loadPlugins(requests: readonly PluginRequest[]): Promise<void> {
  for (const request of requests) {
    const file = resolvePlugin(request.module, request.base);
    if (file === null) throw failed(request, `no such file or installed package (looked from ${request.base})`);
    const real = realpathSync(file);
    if (loaded.has(real)) continue;
    let exports: Record<string, unknown>;
    try {
      exports = (await import(pathToFileURL(real).href)) as Record<string, unknown>;
    } catch (err) {
      throw failed(request, `cannot be imported: ${firstLine(err)}`);
    }
    const register = registerOf(exports);
    if (register === null) throw failed(request, "exports no register function (a default export or one named register)");
    loaded.add(real);
    try {
      await register(PLUGIN_API);
    } catch (err) {
      throw failed(request, `its registration failed: ${firstLine(err)}`);
    }
  }
}

function firstLine(err: unknown): string {
  return toGitGoodError(err).message.split("\n")[0] ?? "";
}
