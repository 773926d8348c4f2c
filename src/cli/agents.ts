import { Command } from "commander";
import { PRESETS, agentsDir, installDir, installPackage, isInstalled, type AgentPreset } from "../agents/presets/index.js";
import { GitGoodError } from "../errors.js";
import type { CliIO } from "./io.js";

/** The presets NAMES names (all of them when none), each at `version` or its pinned version; an unknown name is a one-line BAD_OPTION. */
function chosen(names: readonly string[], version: string | undefined): { preset: AgentPreset; version: string }[] {
  if (version !== undefined && names.length !== 1) throw new GitGoodError("BAD_OPTION", "--agent-version goes with one agent name");
  const presets = names.length === 0 ? PRESETS : names.map((n) => PRESETS.find((p) => p.name === n) ?? unknown(n));
  return presets.map((preset) => ({ preset, version: version ?? preset.version }));
}

function unknown(name: string): never {
  throw new GitGoodError("BAD_OPTION", `no CLI agent named '${name}'; known: ${PRESETS.map((p) => p.name).join(", ")}`);
}

/**
 * `gitgood agents`: the CLI-agent presets and whether each is in gitgood's cache; `install` puts them there
 * ahead of a run (from the npm registry), `check` says without the network whether a run will find them, so an
 * offline machine can be readied from a copy of the cache directory.
 */
export function agentsCommand(io: CliIO): Command {
  const cmd = new Command("agents").description("the CLI-agent presets (--agent claude-code, …): list, install ahead of a run, or check they are installed");
  cmd
    .command("list", { isDefault: true })
    .description("each preset with its npm package, pinned version and whether it is installed")
    .option("--json", "print the list as JSON", false)
    .action((flags: { json: boolean }) => {
      const rows = PRESETS.map((p) => ({ name: p.name, package: p.package, version: p.version, installed: isInstalled(p.package, p.version), dir: installDir(p.package, p.version) }));
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ dir: agentsDir(), agents: rows }, null, 2)}\n`);
        return;
      }
      const width = Math.max(...rows.map((r) => r.name.length));
      io.stdout.write(`CLI agents in ${agentsDir()}\n`);
      for (const r of rows) io.stdout.write(`${r.name.padEnd(width)}  ${r.package}@${r.version}  ${r.installed ? "installed" : "not installed"}\n`);
    });
  cmd
    .command("install")
    .description("install presets (all when none are named) into gitgood's cache from the npm registry")
    .argument("[names...]", "preset names")
    .option("--agent-version <version>", "the version to install (with one name; default: the pinned one)")
    .action(async (names: string[], flags: { agentVersion?: string }) => {
      for (const { preset, version } of chosen(names, flags.agentVersion)) {
        const already = isInstalled(preset.package, version);
        const dir = await installPackage(preset.package, version);
        io.stdout.write(`${preset.name}: ${preset.package}@${version} ${already ? "was already installed" : "installed"} in ${dir}\n`);
      }
    });
  cmd
    .command("check")
    .description("exit 1 naming the presets (all when none are named) that are not installed; reads the disk only")
    .argument("[names...]", "preset names")
    .option("--agent-version <version>", "the version to look for (with one name; default: the pinned one)")
    .action((names: string[], flags: { agentVersion?: string }) => {
      const missing = chosen(names, flags.agentVersion).filter(({ preset, version }) => !isInstalled(preset.package, version));
      if (missing.length > 0) {
        throw new GitGoodError(
          "AGENT_INSTALL_FAILED",
          `not installed in ${agentsDir()}: ${missing.map(({ preset, version }) => `${preset.name} (${preset.package}@${version})`).join(", ")}; 'gitgood agents install' installs them where the npm registry can be reached`,
        );
      }
      io.stdout.write(`installed in ${agentsDir()}: ${chosen(names, flags.agentVersion).map(({ preset }) => preset.name).join(", ")}\n`);
    });
  return cmd;
}
