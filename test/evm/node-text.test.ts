import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printable, rpcErrorFrom } from '../../src/chains/evm/rpc/errors.ts';
import { createTestDatabase } from '../support/db.ts';

/**
 * A node's error messages are written to rows (a relay's `last_error`, the reason it was given up).
 * anvil prints a custom error's data as raw bytes, NULs included, which PostgreSQL refuses in text:
 * the write recording the refusal then failed on every retry, and the relay (with every later nonce
 * of its wallet) never moved again.
 */

// anvil's own words for PayoutExpired(uint256) reverting, as a relay's simulation received them.
const ANVIL_REVERT =
  'execution reverted: custom error 0x39c10f90: \u0000\u0000\u0000\u0000k\u0007\u00d6\u00f2';

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client(await createTestDatabase());
  await client.connect();
});
afterAll(() => client?.end());

/** The statement the relay uses to record a refusal, inlined as the ORM sends it. */
const record = (text: string) =>
  client.query(
    `update relay_requests set last_error = '${text.replaceAll("'", "''")}' where id = -1 returning id`,
  );

describe("a node's error message", () => {
  it('keeps its words and its data, with control characters written out', () => {
    const error = rpcErrorFrom({ code: 3, message: ANVIL_REVERT, data: '0x39c10f90' });
    expect(error.message).toBe(
      'execution reverted: custom error 0x39c10f90: \\x00\\x00\\x00\\x00k\\x07\u00d6\u00f2',
    );
    expect(error.data).toBe('0x39c10f90');
    expect(error.code).toBe(3);
    expect(printable('line one\n\tline two')).toBe('line one\n\tline two');
    expect(printable('\r\u007f')).toBe('\\x0d\\x7f');
  });

  it('can be recorded in PostgreSQL, where the raw message cannot', async () => {
    await expect(record(ANVIL_REVERT)).rejects.toThrow();
    await expect(record(rpcErrorFrom({ code: 3, message: ANVIL_REVERT }).message)).resolves.toBeDefined();
  });
});
