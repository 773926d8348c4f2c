import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { HOME_AT } from "./types.js";

/**
 * What a jail shows of the host's /etc: what programs need to start, resolve names, check certificates
 * and find their alternatives, nothing that holds a secret (shadow, ssl/private, registry tokens in
 * npmrc or pip.conf, ssh host keys) or the host's users. Missing ones are skipped.
 */
const ETC_SHOWN = [
  "alternatives",
  "ca-certificates",
  "ca-certificates.conf",
  "ssl/certs",
  "ssl/openssl.cnf",
  "pki/tls/certs",
  "pki/ca-trust",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "nsswitch.conf",
  "host.conf",
  "gai.conf",
  "hosts",
  "resolv.conf",
  "services",
  "protocols",
  "networks",
  "localtime",
  "timezone",
  "locale.alias",
  "os-release",
  "debian_version",
  "lsb-release",
  "mime.types",
  "magic",
  "magic.mime",
  "inputrc",
  "profile",
  "bash.bashrc",
  "shells",
  "gitconfig",
  "perl",
];

/** Directories of language runtimes' own settings (python3.11, java-17-openjdk). */
const RUNTIME_DIRS = /^(python3(\.\d+)?|java-[\w.-]+)$/;

/** The host's /etc entries a jail shows, as paths below /etc. */
function etcShown(): string[] {
  let names: string[] = [];
  try {
    names = readdirSync("/etc");
  } catch {
    /* no /etc to read: only the fixed list, each tried */
  }
  return [...ETC_SHOWN, ...names.filter((n) => RUNTIME_DIRS.test(n)).sort()].map((n) => path.join("/etc", n));
}

/** The users a jail knows: root, the user programs run as (named `agent`, home HOME_AT), nobody. */
export function passwdStandIn(uid: number, gid: number): { passwd: string; group: string } {
  const users = [`root:x:0:0:root:/root:/bin/sh`];
  const groups = [`root:x:0:`];
  if (uid !== 0) users.push(`agent:x:${uid}:${gid}:agent:${HOME_AT}:/bin/sh`);
  if (gid !== 0) groups.push(`agent:x:${gid}:`);
  users.push(`nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin`);
  groups.push(`nogroup:x:65534:`);
  return { passwd: `${users.join("\n")}\n`, group: `${groups.join("\n")}\n` };
}

let standIns: string | undefined;

/** The directory holding this process's passwd and group stand-ins (made once, private to the user, removed when the process exits). */
function standInDir(): string {
  if (standIns !== undefined) return standIns;
  const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-etc-"));
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  const gid = typeof process.getgid === "function" ? process.getgid() : 0;
  const files = passwdStandIn(uid, gid);
  writeFileSync(path.join(dir, "passwd"), files.passwd, { mode: 0o644 });
  writeFileSync(path.join(dir, "group"), files.group, { mode: 0o644 });
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  standIns = dir;
  return dir;
}

/** The bubblewrap arguments that show the jail its /etc: the stand-ins and the entries of ETC_SHOWN that exist. */
export function etcArgs(): string[] {
  const dir = standInDir();
  const args = ["--ro-bind", path.join(dir, "passwd"), "/etc/passwd", "--ro-bind", path.join(dir, "group"), "/etc/group"];
  for (const p of etcShown()) args.push("--ro-bind-try", p, p);
  return args;
}
