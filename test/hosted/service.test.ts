import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { HostedService } from '../../src/modules/hosted/hosted.service.ts';
import { hashHostedToken } from '../../src/modules/hosted/hosted.token.ts';
import { type SessionFixture, sessionFixture } from '../session/support.ts';

let f: SessionFixture;
let hosted: HostedService;
beforeAll(async () => {
  f = await sessionFixture({ players: 0 });
  hosted = new HostedService({
    config: { ...f.t.config, publicBaseUrl: 'https://pay.example.com' },
    sessions: f.t.app.services.sessions,
  });
});
afterAll(() => f?.close());

const em = () => f.t.app.fork();
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  throw new Error('expected an error');
}

describe('hosted links (service, D12)', () => {
  it('issues a link whose token opens its session, stores only the hash, and runs the step machine', async () => {
    const link = await hosted.create(em(), f.merchant.id, { returnUrl: 'https://shop.example/back' });
    expect(link.url).toBe(`https://pay.example.com/p/${link.token}`);
    const ttl = link.expiresAt.getTime() - Date.now();
    expect(ttl).toBeGreaterThan((f.t.config.hppLinkTtlMinutes - 1) * 60_000);
    expect(ttl).toBeLessThanOrEqual(f.t.config.hppLinkTtlMinutes * 60_000);
    const rows = await em().execute('select hosted_token_hash, return_url from sessions where id = ?', [
      link.session,
    ]);
    expect(rows[0]).toEqual({
      hosted_token_hash: hashHostedToken(link.token),
      return_url: 'https://shop.example/back',
    });
    const status = await hosted.status(em(), link.token);
    expect(status).toMatchObject({ session: link.session, step: 'network_select', status: 'pending' });
    const next = await hosted.step(em(), { token: link.token, action: 'select_network', value: 'eth' });
    expect(next).toMatchObject({ session: link.session, step: 'connect_wallet' });
  });

  it('a repeat returns the same session with a fresh token; the earlier one is 404; latest language wins', async () => {
    const input = { externalOrderId: `o-${Date.now()}`, network: 'eth', token: 'USDC', amount: '5' };
    const a = await hosted.create(em(), f.merchant.id, { ...input, language: 'en' });
    const b = await hosted.create(em(), f.merchant.id, { ...input, language: 'ru' });
    expect(b.session).toBe(a.session);
    expect(b.token).not.toBe(a.token);
    expect(await codeOf(hosted.status(em(), a.token))).toBe('not_found');
    const status = await hosted.status(em(), b.token);
    expect(status.session).toBe(a.session);
    const rows = await em().execute('select language from sessions where id = ?', [a.session]);
    expect(rows[0]?.language).toBe('ru');
    expect(await codeOf(hosted.create(em(), f.merchant.id, { ...input, amount: '6' }))).toBe('conflict');
  });

  it('an order with a payment reported is 409 on create; its status stays readable past the link expiry', async () => {
    const input = { externalOrderId: `p-${Date.now()}` };
    const link = await hosted.create(em(), f.merchant.id, input);
    await em().execute(
      `update sessions set reported_tx_hash = ?, hosted_expires_at = now() - interval '1 minute' where id = ?`,
      [`0x${'ab'.repeat(32)}`, link.session],
    );
    expect(await codeOf(hosted.create(em(), f.merchant.id, input))).toBe('conflict');
    expect((await hosted.status(em(), link.token)).session).toBe(link.session);
  });

  it('missing token 400, unknown token 404, expired unpaid link 410 (step and status)', async () => {
    expect(await codeOf(hosted.status(em(), ''))).toBe('validation');
    expect(await codeOf(hosted.step(em(), { action: 'select_network' }))).toBe('validation');
    expect(await codeOf(hosted.status(em(), 'A'.repeat(43)))).toBe('not_found');
    const link = await hosted.create(em(), f.merchant.id, {});
    await em().execute(`update sessions set hosted_expires_at = now() - interval '1 second' where id = ?`, [
      link.session,
    ]);
    expect(await codeOf(hosted.status(em(), link.token))).toBe('expired');
    expect(
      await codeOf(hosted.step(em(), { token: link.token, action: 'select_network', value: 'eth' })),
    ).toBe('expired');
  });
});
