import { quickAddJob, runOnce } from 'graphile-worker';
import { beforeAll, expect, it } from 'vitest';
import type { Logger } from '../../src/lib/logger.ts';
import { graphileLogger } from '../../src/worker/log.ts';
import { createTestDatabase } from '../support/db.ts';

interface Line {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

/** A Logger that keeps what it is given. */
function capture(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, msg, fields });
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

let url: string;
beforeAll(async () => {
  url = await createTestDatabase();
});

it("graphile-worker's lines land in the service log: completions at debug, job logs and failures kept", async () => {
  const lines: Line[] = [];
  const logger = graphileLogger(capture(lines));
  await quickAddJob({ connectionString: url }, 'works', {});
  await quickAddJob({ connectionString: url }, 'breaks', {}, { maxAttempts: 1 });
  await runOnce({
    connectionString: url,
    logger,
    noHandleSignals: true,
    taskList: {
      works: async (_payload, helpers) => helpers.logger.info('did the work'),
      breaks: async () => {
        throw new Error('it broke');
      },
    },
  });

  const completed = lines.find((l) => l.msg.startsWith('Completed task'));
  expect(completed).toMatchObject({ level: 'debug', fields: { task: 'works' } });
  expect(completed?.fields.durationMs).toEqual(expect.any(Number));

  expect(lines.find((l) => l.msg === 'did the work')).toMatchObject({
    level: 'info',
    fields: { task: 'works', jobId: expect.any(String) },
  });

  const failed = lines.find((l) => l.msg.startsWith('Failed task'));
  expect(failed).toMatchObject({ level: 'error', fields: { task: 'breaks' } });
  expect((failed?.fields.error as Error | undefined)?.message).toBe('it broke');
});

it('its LISTEN connection cut and retried is a warning; a job failure stays an error', () => {
  const lines: Line[] = [];
  const log = graphileLogger(capture(lines)).scope({});
  log.error(
    'Error with notify listener (trying again in 120ms): terminating connection due to administrator command',
  );
  log.error('Error occurred attempting to UNLISTEN: Error: Client has encountered a connection error');
  log.error('Failed task 7 (deliver_webhook, 12ms, attempt 1 of 8) with error');
  expect(lines.map((l) => l.level)).toEqual(['warn', 'warn', 'error']);
});
