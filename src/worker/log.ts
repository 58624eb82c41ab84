import { Logger as GraphileLogger, type LogLevel } from 'graphile-worker';
import type { Logger } from '../lib/logger.ts';

/** Routine lines of a busy worker: one per finished job. */
const ROUTINE = /^Completed task /;
/**
 * graphile-worker's own connection trouble that it recovers from by itself (its LISTEN connection cut
 * by a database restart or shutdown: it reconnects, or it is stopping anyway). Worth a warning, not an
 * error: nothing failed that anyone must act on.
 */
const RECOVERED = /^(Error with notify listener \(trying again|Error occurred attempting to UNLISTEN)/;

/**
 * graphile-worker's log in the service's own structured log: one JSON line per event with the job's
 * scope as fields, instead of its plain console lines beside ours. A job's completion is routine and
 * goes to `debug`, so a worker delivering hundreds of webhooks a second does not flood the log;
 * failures stay errors, with the error itself.
 */
export function graphileLogger(logger: Logger): GraphileLogger {
  return new GraphileLogger((scope) => (level: LogLevel, message: string, meta?: Record<string, unknown>) => {
    // Completion and failure lines carry the job in their metadata rather than in the scope.
    const job = meta?.job as { id?: string; task_identifier?: string; attempts?: number } | undefined;
    const task = scope.taskIdentifier ?? job?.task_identifier;
    const jobId = scope.jobId ?? job?.id;
    const fields: Record<string, unknown> = {
      ...(scope.workerId ? { workerId: scope.workerId } : {}),
      ...(task ? { task } : {}),
      ...(jobId ? { jobId: String(jobId) } : {}),
      ...(job?.attempts ? { attempt: job.attempts } : {}),
      ...(meta?.error ? { error: meta.error } : {}),
      ...(typeof meta?.duration === 'number' ? { durationMs: Math.round(meta.duration) } : {}),
    };
    if (level === 'error' && !RECOVERED.test(message)) logger.error(message, fields);
    else if (level === 'error') logger.warn(message, fields);
    else if (level === 'warning') logger.warn(message, fields);
    else if (level === 'info' && !ROUTINE.test(message)) logger.info(message, fields);
    else logger.debug(message, fields);
  });
}
