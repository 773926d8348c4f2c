/**
 * The host variables an agent program gets: enough to run programs and print text, never the host's
 * keys, tokens or cloud credentials. Anything else reaches it only when the user names it
 * (`--pass-env NAME`), and gitgood's own variables are set on top.
 */
const ALLOWED = new Set(["PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR"]);

function allowed(name: string, passEnv: readonly string[]): boolean {
  return ALLOWED.has(name) || name.startsWith("LC_") || passEnv.includes(name);
}

/**
 * The environment changes for an agent program, as exec options take them (`undefined` removes a
 * variable the program would inherit): every host variable outside the allow-list and `passEnv` is
 * removed, then `set` (gitgood's variables) is added.
 */
export function agentEnvironment(
  host: NodeJS.ProcessEnv,
  passEnv: readonly string[],
  set: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const name of Object.keys(host)) if (!allowed(name, passEnv)) env[name] = undefined;
  return { ...env, ...set };
}
