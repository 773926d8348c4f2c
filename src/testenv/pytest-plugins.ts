import { GitGoodError } from "../errors.js";

/**
 * Which pytest plugins an evaluation loads.
 *
 * A Python environment is a virtual environment that sees the system's site-packages (so an offline
 * machine can run it), and pytest loads every plugin any installed distribution registers: the host's
 * pytest-randomly, pytest-rerunfailures or pytest-timeout would reorder, retry or time out the tests
 * of every evaluation, and a verdict would depend on the machine it ran on. So test runs start pytest
 * with plugin autoloading off, and gitgood's results plugin loads, by entry-point name, the plugins
 * the environment asks for: those of distributions installed in the environment itself, those its
 * set-up names in a `pip install` (or a requirements file one reads), and what those require (extras
 * followed where they were asked for). The list is worked out once, by the script below run with the
 * environment's interpreter at the end of the build, and kept in the environment's record.
 */
const PLUGIN_SCAN_SOURCE = String.raw`"""The pytest plugins an environment asks for (written by gitgood; run once at the end of its build)."""
import json, os, re, shlex, sys
from importlib import metadata

def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()

VALUED = {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url",
          "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--upgrade-strategy", "--progress-bar",
          "--python-version", "--platform", "--implementation", "--abi", "--no-binary", "--only-binary",
          "--global-option", "--config-settings", "-C", "--src", "--cache-dir", "--log", "--trusted-host",
          "--proxy", "--retries", "--timeout", "--exists-action", "--cert", "--client-cert", "--report"}
NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")
LOCAL_EXTRAS = re.compile(r"\[([^\]]*)\]\s*$")

def extras_of(group):
    return {norm(e.strip()) for e in (group or "").split(",") if e.strip()}

def from_requirement(text, names, depth):
    text = text.split(" #", 1)[0].strip()
    if not text or text.startswith("#"):
        return
    if text.startswith("-"):
        words = text.split(None, 1)
        if words[0] in ("-r", "--requirement") and len(words) > 1 and depth < 4:
            from_file(words[1].strip(), names, depth + 1)
        return
    if "/" in text or text.startswith(".") or text.endswith((".whl", ".zip", ".tar.gz")):
        m = LOCAL_EXTRAS.search(text)
        names.setdefault("", set()).update(extras_of(m.group(1) if m else ""))
        return
    m = NAME.match(text)
    if m:
        names.setdefault(norm(m.group(1)), set()).update(extras_of(m.group(2)))

def from_file(rel, names, depth):
    try:
        with open(rel, encoding="utf-8", errors="replace") as f:
            for line in f:
                from_requirement(line, names, depth)
    except OSError:
        pass

def from_command(command, names):
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return
    i = 0
    while i < len(words):
        w = words[i]
        if os.path.basename(w) in ("pip", "pip3") or (w == "-m" and i + 1 < len(words) and words[i + 1] == "pip"):
            j = i + (2 if w == "-m" else 1)
            while j < len(words) and words[j].startswith("-"):
                j += 1
            if j < len(words) and words[j] == "install":
                j += 1
                while j < len(words) and words[j] not in ("&&", "||", ";", "|"):
                    arg = words[j]
                    if arg in ("-r", "--requirement") and j + 1 < len(words):
                        from_file(words[j + 1], names, 1)
                        j += 2
                        continue
                    if arg in ("-e", "--editable") and j + 1 < len(words):
                        from_requirement(words[j + 1], names, 1)
                        j += 2
                        continue
                    if arg in VALUED:
                        j += 2
                        continue
                    if not arg.startswith("-"):
                        from_requirement(arg, names, 1)
                    j += 1
                i = j
                continue
        i += 1

def wanted(req, extras):
    try:
        from packaging.requirements import Requirement
    except ImportError:
        m = NAME.match(req.strip())
        return (norm(m.group(1)), set()) if m and "extra" not in req.split(";", 1)[-1] else None
    try:
        r = Requirement(req)
    except Exception:
        return None
    if r.marker is not None and not any(r.marker.evaluate({"extra": e}) for e in (extras or {""})):
        return None
    return norm(r.name), extras_of(",".join(r.extras))

def main():
    names = {}
    for command in json.loads(sys.argv[1]):
        from_command(command, names)
    prefix = os.path.realpath(sys.prefix) + os.sep
    by_name = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            by_name.setdefault(norm(name), dist)
    local = names.pop("", set())
    todo = [(n, local) for n, d in by_name.items() if os.path.realpath(str(d.locate_file(""))).startswith(prefix)]
    todo += [(n, e) for n, e in names.items() if n in by_name]
    seen = {}
    while todo:
        n, extras = todo.pop()
        if n in seen and extras <= seen[n]:
            continue
        seen[n] = seen.get(n, set()) | extras
        for req in by_name[n].requires or []:
            got = wanted(req, extras)
            if got is not None and got[0] in by_name:
                todo.append(got)
    plugins = sorted({ep.name for n in seen for ep in by_name[n].entry_points if ep.group == "pytest11"})
    print("gitgood-pytest-plugins " + json.dumps(plugins))

main()
`;

/** The line the script prints its answer on. */
const MARK = "gitgood-pytest-plugins ";

/**
 * The argv that runs the scan with the environment's `python` for a build whose set-up ran `setup`; isolated
 * mode (`-I`), so a module in the project's root (a `json.py`, say) cannot stand in for the one the scan imports.
 */
export function pluginScanArgv(setup: readonly string[]): string[] {
  return ["python", "-I", "-c", PLUGIN_SCAN_SOURCE, JSON.stringify(setup)];
}

/** The entry-point names the scan printed; a missing or malformed answer is an ENV_BUILD_FAILED. */
export function parsePluginScan(output: string): string[] {
  const line = output.split("\n").find((l) => l.startsWith(MARK));
  let names: unknown = null;
  try {
    names = line === undefined ? null : JSON.parse(line.slice(MARK.length));
  } catch {
    names = null;
  }
  if (!Array.isArray(names) || !names.every((n): n is string => typeof n === "string" && /^[^,\s]+$/.test(n))) {
    throw new GitGoodError("ENV_BUILD_FAILED", "could not list the pytest plugins of the environment: the scan gave no answer");
  }
  return names;
}
