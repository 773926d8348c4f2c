import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { isGitGoodError } from "../errors.js";
import { execIn, type ExecResult } from "../sandbox/exec.js";
import { chooseIsolation, isolationBackend, isolationModes, nodeCommand, registerIsolation, unregisterIsolation, type IsolationBackend, type IsolationRequest } from "../sandbox/isolation.js";
import { fail, type ConformanceCheck } from "./conformance.js";

/** The checks' scratch: a work tree for the jail, and a directory beside it that stands for the rest of the host. */
interface Scratch {
  work: string;
  outside: string;
}

async function inScratch<T>(use: (s: Scratch) => Promise<T>): Promise<T> {
  const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-conformance-"));
  const s = { work: path.join(root, "work"), outside: path.join(root, "outside") };
  mkdirSync(s.work);
  mkdirSync(s.outside);
  try {
    return await use(s);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Runs `argv` in a jail of the backend over the scratch work tree. */
function jailed(mode: string, s: Scratch, argv: string[], over: Partial<IsolationRequest> = {}): Promise<ExecResult> {
  const isolation = chooseIsolation({ mode, acceptWeakLimits: true, ...over });
  return execIn(s.work, argv, { timeout: 60 }, { work: s.work, isolation });
}

const text = (r: ExecResult) => `${r.stdout.toString("utf8")}${r.stderr.toString("utf8")}`;

/**
 * The checks every isolation backend must pass, run through gitgood's own path (registered by name,
 * chosen with `chooseIsolation`, programs started with the sandbox's exec): it is refused where it
 * cannot run; a program in it cannot read a file outside its work tree, cannot write outside it, cannot
 * reach a server on the host's loopback when the network is off, does not see the host's variables; and
 * each limit is either enforced (a program past its memory limit is stopped) or refused. A backend not
 * registered yet is registered for the checks. A backend that does not isolate (`none`) is only checked
 * to be one gitgood names as such.
 */
export function isolationConformance(backend: IsolationBackend): ConformanceCheck[] {
  if (!isolationModes().includes(backend.name)) registerIsolation(backend);
  else if (isolationBackend(backend.name) !== backend) fail(`another backend is registered as ${backend.name}`);
  const mode = backend.name;
  const why = backend.unavailable();
  const skip = !backend.isolates ? `${mode} does not isolate` : why !== null ? `${mode} cannot run here: ${why}` : null;
  const checks: ConformanceCheck[] = [
    {
      name: `${mode}: is refused where it cannot run, never replaced by no isolation`,
      skip: null,
      async run() {
        const probe = `${mode}-unavailable-probe`;
        const stand = Object.create(backend, { name: { value: probe }, unavailable: { value: () => "the probe says so" } }) as IsolationBackend;
        registerIsolation(stand);
        try {
          chooseIsolation({ mode: probe, acceptWeakLimits: true });
          fail(`a backend that cannot run was chosen`);
        } catch (err) {
          if (!isGitGoodError(err) || err.code !== "ISOLATION_UNAVAILABLE") throw err;
        } finally {
          unregisterIsolation(probe);
        }
        if (why !== null) {
          try {
            chooseIsolation({ mode, acceptWeakLimits: true });
            fail(`${mode} was chosen here though it says it cannot run (${why})`);
          } catch (err) {
            if (!isGitGoodError(err) || err.code !== "ISOLATION_UNAVAILABLE") throw err;
          }
        }
      },
    },
    {
      name: `${mode}: a program cannot read a file outside its work tree`,
      skip,
      run: () =>
        inScratch(async (s) => {
          const canary = `canary-${randomBytes(8).toString("hex")}`;
          const file = path.join(s.outside, "secret.txt");
          writeFileSync(file, canary);
          const r = await jailed(mode, s, ["cat", file]);
          if (text(r).includes(canary)) fail(`a program read ${file}, outside its work tree`);
        }),
    },
    {
      name: `${mode}: a program cannot write outside its work tree`,
      skip,
      run: () =>
        inScratch(async (s) => {
          const target = path.join(s.outside, "escaped.txt");
          await jailed(mode, s, ["sh", "-c", `echo escaped > '${target}'; echo inside > '${path.join(s.work, "inside.txt")}'`]);
          if (existsSync(target)) fail(`a program wrote ${target}, outside its work tree`);
          if (!existsSync(path.join(s.work, "inside.txt"))) fail("a program could not write its own work tree (so the check above proves nothing)");
        }),
    },
    {
      name: `${mode}: a program cannot reach the host's loopback when the network is off`,
      skip,
      run: () =>
        inScratch(async (s) => {
          let reached = 0;
          const server = net.createServer((socket) => {
            reached++;
            socket.destroy();
          });
          await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
          const port = (server.address() as net.AddressInfo).port;
          try {
            const probe = `const s=require("net").connect(${port},"127.0.0.1");s.on("connect",()=>{console.log("CONNECTED");process.exit(0)});s.on("error",()=>process.exit(3))`;
            const r = await jailed(mode, s, [nodeCommand(chooseIsolation({ mode, acceptWeakLimits: true })), "-e", probe], { network: false });
            if (reached > 0 || r.stdout.toString("utf8").includes("CONNECTED")) fail(`a program reached 127.0.0.1:${port} on the host with the network off`);
          } finally {
            server.close();
          }
        }),
    },
    {
      name: `${mode}: a program does not see the host's variables`,
      skip,
      run: () =>
        inScratch(async (s) => {
          const name = "GITGOOD_CONFORMANCE_SECRET";
          const secret = `secret-${randomBytes(8).toString("hex")}`;
          process.env[name] = secret;
          try {
            const r = await jailed(mode, s, ["env"]);
            if (text(r).includes(secret)) fail(`a program saw the host's ${name}`);
            if (r.code !== 0) fail(`env did not run in the jail: ${text(r).trim()}`);
          } finally {
            delete process.env[name];
          }
        }),
    },
    {
      name: `${mode}: enforces its memory limit, or refuses it`,
      skip,
      run: () =>
        inScratch(async (s) => {
          const limits = { memory: 128 * 1024 * 1024 };
          try {
            chooseIsolation({ mode, limits });
          } catch (err) {
            if (isGitGoodError(err) && err.code === "LIMIT_UNENFORCEABLE") return;
            throw err;
          }
          const hog = `const b=Buffer.alloc(${512 * 1024 * 1024});b.fill(1);console.log("ALLOCATED "+b.length)`;
          const r = await jailed(mode, s, [nodeCommand(chooseIsolation({ mode, limits })), "-e", hog], { limits, acceptWeakLimits: false });
          if (r.stdout.toString("utf8").includes("ALLOCATED")) fail("a program used 512 MiB under a memory limit of 128 MiB the backend said it enforces");
        }),
    },
  ];
  return checks;
}
