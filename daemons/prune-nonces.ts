import type { Task } from 'graphile-worker';
import type { App } from '../src/app.ts';

/** Deletes request nonces older than the replay window. Idempotent: a second run deletes nothing more. */
export const pruneNonces =
  (app: App): Task =>
  async (_payload, helpers) => {
    const deleted = await app.nonces.prune();
    helpers.logger.debug(`pruned ${deleted} request nonces`);
  };
