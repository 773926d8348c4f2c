import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../../errors.js";
import { execIn } from "../../sandbox/exec.js";
import { cacheRoot } from "../../util/cache-root.js";

/** Where presets are installed: `$GITGOOD_AGENTS_DIR`, else `agents/` in gitgood's cache directory. */
export function agentsDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.GITGOOD_AGENTS_DIR;
  return own && own.trim() !== "" ? path.resolve(own) : path.join(cacheRoot(env), "agents");
}

const MARK = ".gitgood-installed";
const INSTALL_TIMEOUT_S = 600;
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]*$/;

/** Installs in flight or done in this process, by directory. */
const installs = new Map<string, Promise<string>>();

/** The directory a package's version is installed in. */
export function installDir(pkg: string, version: string): string {
  return path.join(agentsDir(), `${pkg.replace(/^@/, "").replace(/\//g, "+")}@${version}`);
}

/** Whether `pkg@version` is installed, complete, in gitgood's cache (looks at the disk only, never at npm). */
export function isInstalled(pkg: string, version: string): boolean {
  return existsSync(path.join(installDir(pkg, version), MARK));
}

/**
 * Installs `pkg@version` once into gitgood's cache with `npm install`, from the npm registry only
 * (`--ignore-scripts`: no install script runs, so nothing is fetched from anywhere else), and gives its
 * directory (with `node_modules/`). The install goes to a temporary directory renamed into place when
 * complete, so a killed install leaves nothing half-made; runs that install the same version at once both
 * end with one complete copy. A failure is AGENT_INSTALL_FAILED, in one line.
 */
export function installPackage(pkg: string, version: string): Promise<string> {
  if (!VERSION.test(version)) return Promise.reject(new GitGoodError("BAD_OPTION", `--agent-version takes a version such as 1.2.3, not '${version}'`));
  const dir = installDir(pkg, version);
  let pending = installs.get(dir);
  if (!pending) {
    // A failure is forgotten, so that a process that lives on (a worker, a server) tries again next time.
    pending = install(pkg, version, dir).catch((err: unknown) => {
      installs.delete(dir);
      throw err;
    });
    installs.set(dir, pending);
  }
  return pending;
}

async function install(pkg: string, version: string, dir: string): Promise<string> {
  if (isInstalled(pkg, version)) return dir;
  const parent = path.dirname(dir);
  mkdirSync(parent, { recursive: true });
  const tmp = mkdtempSync(path.join(parent, ".installing-"));
  try {
    writeFileSync(path.join(tmp, "package.json"), `${JSON.stringify({ name: "gitgood-agent", private: true }, null, 2)}\n`);
    const argv = ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save", "--loglevel", "error", `${pkg}@${version}`];
    let r;
    try {
      r = await execIn(tmp, argv, { timeout: INSTALL_TIMEOUT_S, maxOutput: 64 * 1024, keep: "tail" });
    } catch (err) {
      throw new GitGoodError("AGENT_INSTALL_FAILED", `cannot install ${pkg}@${version}: ${err instanceof Error ? err.message : String(err)}`, { package: pkg, version });
    }
    if (r.code !== 0) {
      const why = r.timedOut ? `npm did not finish within ${INSTALL_TIMEOUT_S} s` : npmFailure(r.stderr.toString("utf8"), pkg, version);
      throw new GitGoodError("AGENT_INSTALL_FAILED", `cannot install ${pkg}@${version}: ${why}`, { package: pkg, version });
    }
    writeFileSync(path.join(tmp, MARK), `${pkg}@${version}\n`);
    try {
      renameSync(tmp, dir);
    } catch (err) {
      // Another run finished the same install first: theirs is complete.
      if (!existsSync(path.join(dir, MARK))) throw err;
    }
    return dir;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** npm's codes for a registry it could not reach (or, offline, a package not in its cache). */
const UNREACHABLE = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTCACHED)\b/;

/**
 * Why npm failed, in one line: what it means for the user first (the registry unreachable, no such package, no
 * such version), then npm's own error lines, without the path of its debug log (npm rotates those logs away).
 */
function npmFailure(stderr: string, pkg: string, version: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/complete log of this run|^npm (error|ERR!)\s*$/i.test(l));
  const errors = lines.filter((l) => /^npm (error|ERR!)/i.test(l)).map((l) => l.replace(/^npm (error|ERR!)\s*/i, ""));
  const said = (errors.length > 0 ? errors : lines.slice(-3)).join("; ");
  const own = said.length > 400 ? `${said.slice(0, 397)}...` : said;
  const text = errors.join("\n");
  const meaning = UNREACHABLE.test(text)
    ? `the npm registry cannot be reached (offline?); install the agent where it can be with 'gitgood agents install' and copy its directory (${agentsDir()}), or set GITGOOD_AGENTS_DIR to a copy`
    : /\b(ETARGET|notarget)\b/i.test(text)
      ? `npm has no version ${version} of ${pkg} (--agent-version chooses another)`
      : /\bE404\b|404 Not Found/i.test(text)
        ? `npm has no package ${pkg}`
        : null;
  if (meaning === null) return own === "" ? "npm failed without saying why" : `npm said: ${own}`;
  return own === "" ? meaning : `${meaning} (npm said: ${own})`;
}
