import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { provisionDemo } from '../../src/devstack/provision.ts';
import { Merchant } from '../../src/modules/merchant/merchant.entity.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** The embedded stack's demo merchant, as `npm start` provisions it. */

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function stack(allowPrivate: boolean): Promise<{ t: TestApp; dir: string }> {
  const t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: String(allowPrivate) } });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'provision-'));
  cleanups.push(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { t, dir };
}

const webhookUrl = async (t: TestApp, dir: string) => {
  const { merchantId } = JSON.parse(readFileSync(path.join(dir, 'provision.json'), 'utf8')) as {
    merchantId: string;
  };
  return (await t.app.fork().findOneOrFail(Merchant, { id: merchantId })).webhookUrl;
};

it('points the demo merchant’s webhooks at the stack’s own inbox', async () => {
  const { t, dir } = await stack(true);
  await provisionDemo(t.app, dir, [], 'http://localhost:8080');
  expect(await webhookUrl(t, dir)).toBe('http://localhost:8080/dev/webhook-inbox');
});

it('with private webhook targets refused, starts with the demo merchant’s webhooks off and says why', async () => {
  const { t, dir } = await stack(false);
  const warn = vi.spyOn(t.app.logger, 'warn');
  await provisionDemo(t.app, dir, [], 'http://localhost:8080');
  expect(await webhookUrl(t, dir)).toBeNull();
  expect(warn).toHaveBeenCalledWith(
    'the demo merchant has no webhook URL: its inbox is refused as a webhook target',
    expect.objectContaining({
      inbox: 'http://localhost:8080/dev/webhook-inbox',
      reason: expect.stringMatching(/loopback/),
    }),
  );

  // A URL set before (a stack that allowed it) is removed: nothing could be delivered to it now.
  await t.app.fork().execute(`update merchants set webhook_url = 'http://localhost:8080/dev/webhook-inbox'`);
  await provisionDemo(t.app, dir, [], 'http://localhost:8080');
  expect(await webhookUrl(t, dir)).toBeNull();
});
