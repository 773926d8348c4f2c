import { existsSync } from "node:fs";
import { GitGoodError } from "../errors.js";
import { CONFIG_FILE_NAME } from "./config-name.js";

/** The global option that loads a plug-in; it may be given anywhere before a `--`, and more than once. */
export const PLUGIN_OPTION = "--plugin";

/** The arguments with every `--plugin MODULE` (or `--plugin=MODULE`) taken out, and the modules they name, in order. */
export function splitPluginArgs(argv: readonly string[]): { args: string[]; plugins: string[] } {
  const args: string[] = [];
  const plugins: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      args.push(...argv.slice(i));
      break;
    }
    if (arg === PLUGIN_OPTION) {
      const module = argv[i + 1];
      if (module === undefined || module === "" || module.startsWith("-")) throw new GitGoodError("BAD_OPTION", `${PLUGIN_OPTION} takes a module: a path (./my-family) or an installed package's name`);
      plugins.push(module);
      i++;
    } else if (arg.startsWith(`${PLUGIN_OPTION}=`)) {
      const module = arg.slice(PLUGIN_OPTION.length + 1);
      if (module === "") throw new GitGoodError("BAD_OPTION", `${PLUGIN_OPTION} takes a module: a path (./my-family) or an installed package's name`);
      plugins.push(module);
    } else {
      args.push(arg);
    }
  }
  return { args, plugins };
}

/**
 * Loads the plug-ins a call asks for — its `--plugin` options (paths from the working directory), then
 * the configuration file's `plugins:` — before anything reads the registries. Returns whether any was
 * asked for. The configuration is read here only when it can name plug-ins (a `--config` or the default
 * file is there), so that a call without one imports nothing more.
 */
export async function loadRequestedPlugins(args: readonly string[], plugins: readonly string[]): Promise<boolean> {
  const base = process.cwd();
  const requests = plugins.map((module) => ({ module, base, from: PLUGIN_OPTION }));
  if (args.some((a) => a === "--config" || a.startsWith("--config=")) || existsSync(CONFIG_FILE_NAME)) {
    const { configuredPlugins } = await import("./config.js");
    requests.push(...configuredPlugins(args));
  }
  if (requests.length === 0) return false;
  const { loadPlugins } = await import("../plugins/index.js");
  await loadPlugins(requests);
  return true;
}
