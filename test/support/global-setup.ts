/**
 * Runs once per `vitest run`. Database bootstrap is added by the platform layer; chain tests start
 * their own per-worker anvil lazily (see anvil.ts).
 */
export default async function setup(): Promise<() => Promise<void>> {
  return async () => {};
}
