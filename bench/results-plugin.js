// Benchmark: what gitgood's pytest results plug-in (its channel, checks and audit hook) costs a test run of a
// suite the size of tinydb's or cachetools' (a few hundred tests), against the floor of the same pytest
// command without it, measured in the same run.
//
//   npm run build && node bench/results-plugin.js
//   BENCH_FILES=20 BENCH_TESTS=10 BENCH_RUNS=7 node bench/results-plugin.js
//   BENCH_PLUGIN_DIR=/some/dir node bench/results-plugin.js   (a directory holding another _gitgood_results.py)
//
// A synthetic suite (labelled so) is built in code: a small key-value store package, and BENCH_FILES test
// files of BENCH_TESTS tests each that do what such suites do (build and query objects, JSON round trips,
// files under tmp_path, parametrized cases, mock.patch, dataclasses). Both runs load no other plug-in
// (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1) and use `-rA -p no:cacheprovider`, as evaluations do; the plug-in's run
// gets the results pipe on descriptor 3 and must report every test passed, with no tampering, and its end.
// The two are interleaved BENCH_RUNS times; medians of wall time and of CPU time (user + system of pytest's
// process, which a loaded machine disturbs less), their ratios (goal: at most 1.5) and the load average.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PLUGIN_MODULE, pluginDir, readPluginReport } from "../dist/testenv/pytest-results.js";
import { row } from "./rows.js";

const FILES = Number(process.env.BENCH_FILES ?? 20);
const TESTS = Number(process.env.BENCH_TESTS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const STORE = `import dataclasses
import json


@dataclasses.dataclass
class Document:
    key: str
    value: dict


class Store:
    def __init__(self, path=None):
        self.path = path
        self.docs = {}

    def insert(self, key, value):
        self.docs[key] = Document(key, dict(value))
        return key

    def get(self, key):
        doc = self.docs.get(key)
        return None if doc is None else doc.value

    def search(self, pred):
        return sorted(d.key for d in self.docs.values() if pred(d.value))

    def remove(self, key):
        return self.docs.pop(key, None) is not None

    def dump(self):
        text = json.dumps({k: d.value for k, d in self.docs.items()}, sort_keys=True)
        if self.path is not None:
            with open(self.path, "w") as f:
                f.write(text)
        return text

    @classmethod
    def load(cls, path):
        store = cls(path)
        with open(path) as f:
            for k, v in json.load(f).items():
                store.insert(k, v)
        return store
`;

function testFile(n) {
  const lines = ["from unittest import mock", "", "import pytest", "", "from kv import Store", ""];
  for (let t = 0; t < TESTS; t++) {
    const kind = t % 5;
    if (kind === 0) lines.push("", `def test_insert_${n}_${t}():`, "    s = Store()", "    for i in range(50):", "        s.insert(str(i), {'n': i, 'sq': i * i})", `    assert s.get('7') == {'n': 7, 'sq': 49}`);
    if (kind === 1) lines.push("", `def test_search_${n}_${t}():`, "    s = Store()", "    for i in range(50):", "        s.insert('k%02d' % i, {'n': i})", "    assert s.search(lambda v: v['n'] % 10 == 0) == ['k00', 'k10', 'k20', 'k30', 'k40']");
    if (kind === 2) lines.push("", `def test_file_${n}_${t}(tmp_path):`, "    p = tmp_path / 'db.json'", "    s = Store(p)", "    s.insert('a', {'x': 1})", "    s.dump()", "    assert Store.load(p).get('a') == {'x': 1}");
    if (kind === 3) lines.push("", "@pytest.mark.parametrize('k', ['a', 'b', 'c'])", `def test_remove_${n}_${t}(k):`, "    s = Store()", "    s.insert(k, {})", "    assert s.remove(k) and not s.remove(k)");
    if (kind === 4) lines.push("", `def test_mock_${n}_${t}():`, "    s = Store()", "    with mock.patch.object(Store, 'get', return_value={'fake': True}):", "        assert s.get('x') == {'fake': True}", "    assert s.get('x') is None");
  }
  return `${lines.join("\n")}\n`;
}

const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-plugin-"));
try {
  const project = path.join(root, "project");
  mkdirSync(path.join(project, "kv"), { recursive: true });
  mkdirSync(path.join(project, "tests"));
  writeFileSync(path.join(project, "kv", "__init__.py"), STORE);
  for (let n = 0; n < FILES; n++) writeFileSync(path.join(project, "tests", `test_store_${n}.py`), testFile(n));
  const plugin = process.env.BENCH_PLUGIN_DIR ?? pluginDir(root);
  const base = { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PYTHONNOUSERSITE: "1", PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1", PYTHONPATH: project };
  // A launcher that runs pytest (passing descriptor 3 on when it is there) and prints its child's CPU seconds last.
  const launcher = [
    "import os, subprocess, sys",
    "fds = (3,) if os.environ.get('GITGOOD_RESULTS_FD') else ()",
    "code = subprocess.run([sys.executable] + sys.argv[1:], pass_fds=fds).returncode",
    "t = os.times()",
    "sys.stderr.write('\\ncpu %f\\n' % (t.children_user + t.children_system))",
    "sys.exit(code)",
  ].join("\n");
  const argv = ["-c", launcher, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "tests"];
  const cpuOf = (stderr) => Number(/\ncpu ([\d.]+)\n$/.exec(stderr.toString())?.[1] ?? NaN) * 1000;

  const floorRun = () => {
    const started = process.hrtime.bigint();
    const r = spawnSync("python3", argv, { cwd: project, env: base, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (r.status !== 0) throw new Error(`the floor run failed:\n${r.stdout}${r.stderr}`);
    return { ms, cpu: cpuOf(r.stderr) };
  };
  const pluginRun = () => {
    const env = { ...base, PYTHONPATH: [plugin, project].join(path.delimiter), PYTEST_PLUGINS: PLUGIN_MODULE, GITGOOD_RESULTS_FD: "3" };
    const started = process.hrtime.bigint();
    const r = spawnSync("python3", argv, { cwd: project, env, stdio: ["ignore", "pipe", "pipe", "pipe"], maxBuffer: 64 << 20 });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const report = readPluginReport(r.output[3] ?? Buffer.alloc(0));
    const failing = [...report.outcomes.values()].filter((o) => o !== "passed");
    if (r.status !== 0 || !report.ended || report.tampering.length > 0 || failing.length > 0) {
      throw new Error(`the plug-in's run is not clean: exit ${r.status}, ended ${report.ended}, tampering ${JSON.stringify(report.tampering)}, ${failing.length} not passed\n${r.stderr}`);
    }
    return { ms, cpu: cpuOf(r.stderr), tests: report.outcomes.size };
  };

  floorRun();
  const count = pluginRun().tests;
  const floor = [];
  const withPlugin = [];
  for (let i = 0; i < RUNS; i++) {
    floor.push(floorRun());
    withPlugin.push(pluginRun());
  }
  const show = (runs, key) => runs.map((r) => r[key].toFixed(0)).join(" ");
  const f = median(floor.map((r) => r.ms));
  const p = median(withPlugin.map((r) => r.ms));
  const fc = median(floor.map((r) => r.cpu));
  const pc = median(withPlugin.map((r) => r.cpu));
  console.log(`synthetic suite: ${count} tests in ${FILES} files; ${RUNS} interleaved runs each`);
  console.log(`pytest alone (floor)       wall median ${f.toFixed(0)} ms [${show(floor, "ms")}]  cpu median ${fc.toFixed(0)} ms [${show(floor, "cpu")}]`);
  console.log(`pytest + results plug-in   wall median ${p.toFixed(0)} ms [${show(withPlugin, "ms")}]  cpu median ${pc.toFixed(0)} ms [${show(withPlugin, "cpu")}]`);
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log(`ratio wall ${(p / f).toFixed(2)}x, cpu ${(pc / fc).toFixed(2)}x (goal <= 1.5)`);
  row("pytest run with gitgood's results plug-in / without, wall (synthetic suite)", "<= 1.5", `${(p / f).toFixed(2)}x`, p / f <= 1.5);
  row("pytest run with gitgood's results plug-in / without, CPU (synthetic suite)", "<= 1.5", `${(pc / fc).toFixed(2)}x`, pc / fc <= 1.5);
} finally {
  rmSync(root, { recursive: true, force: true });
}
