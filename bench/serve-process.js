// What the serve benches share: running gitgood to completion, starting `gitgood serve` until it says where
// it listens, and posting JSON to it with a token.
import { request } from "node:http";
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "bin", "gitgood.js");

/** Runs `gitgood ARGS` in `cwd`; resolves when it exits 0, rejects with its stderr otherwise. */
export function runGitgood(args, cwd, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (b) => (err += b));
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`gitgood ${args[0]} failed: ${err}`))));
  });
}

/** Starts `gitgood serve ARGS`; resolves with its URL, its stderr so far (a function) and a stop (SIGTERM, then its exit). */
export function startServe(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "serve", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    let told = false;
    child.stderr.on("data", (b) => {
      err += b;
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m && !told) {
        told = true;
        resolve({
          url: m[1],
          stderr: () => err,
          stop: () =>
            new Promise((done) => {
              child.on("close", done);
              child.kill("SIGTERM");
            }),
        });
      }
    });
    child.on("close", (code) => {
      if (!told) reject(new Error(`gitgood serve exited with ${code}: ${err}`));
    });
  });
}

/** A POST of JSON with the bearer `token`; resolves with the status and the parsed answer. */
export function postJson(url, body, token) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (b) => (text += b));
      res.on("end", () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}
