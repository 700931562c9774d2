// The whole numbers launchers pass a process in its environment (ranks, sizes, local ranks): unset or
// empty reads as undefined, anything else must be a whole number ≥ 0.

/** `env[name]` as a whole number ≥ 0; undefined when unset or empty. */
export function envInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`environment variable ${name} must be a whole number ≥ 0, got "${v}"`);
  return n;
}
