/**
 * Walks one payout end to end against a running `npm start`, as a merchant backend with its payout
 * wallet would: approve the router once (build, sign, broadcast, poll), create the payout, sign its
 * EIP-712 order, authorize, then poll until the relayer and the chain follower settle it. Keys come from
 * the running instance's `devstack.json` (under DATA_DIR, `.data` by default).
 * Usage: npm run demo:payout -- [eth|bsc|tron] [USDT|USDC|DAI] [amount] [recipient]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Wallet } from 'ethers';
import { evmToTron } from '../src/chains/tron/address.ts';
import { signedHeaders } from '../src/modules/auth/request-signing.ts';

interface Devstack {
  base_url: string;
  merchant: {
    api_key: string;
    api_secret: string;
    payout_wallet_private_key: string;
    tron_payout_private_key: string;
  };
}

const [network = 'eth', token = 'USDT', amount = '12.5', given] = process.argv.slice(2);
const stack = JSON.parse(
  readFileSync(path.join(process.env.DATA_DIR || '.data', 'devstack.json'), 'utf8'),
) as Devstack;
const tron = network === 'tron';
const payoutWallet = new Wallet(
  tron ? stack.merchant.tron_payout_private_key : stack.merchant.payout_wallet_private_key,
);
const fresh = Wallet.createRandom().address;
const recipient = given ?? (tron ? evmToTron(fresh) : fresh);

// biome-ignore lint/suspicious/noExplicitAny: a demo reads whatever the API answers
async function call(target: string, body: unknown): Promise<any> {
  const raw = JSON.stringify(body);
  const headers = signedHeaders(stack.merchant.api_key, stack.merchant.api_secret, {
    method: 'POST',
    target,
    body: raw,
  });
  const res = await fetch(`${stack.base_url}${target}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: raw,
  });
  const json = (await res.json()) as { error?: { code: string; message: string } };
  if (!res.ok)
    throw Object.assign(new Error(`${target}: ${res.status} ${json.error?.code} ${json.error?.message}`), {
      body: json,
    });
  return json;
}

async function approve(): Promise<void> {
  const built = await call('/v1/payouts/approval', { network, token, amount: '1000000' });
  const t = built.transaction;
  const sent = tron
    ? await call('/v1/payouts/approval/broadcast', {
        network,
        token,
        amount: '1000000',
        raw_transaction: t.raw_transaction,
        signature: payoutWallet.signingKey.sign(`0x${t.tx_id}`).serialized,
      })
    : await call('/v1/payouts/approval/broadcast', {
        network,
        token,
        amount: '1000000',
        signed_transaction: await payoutWallet.signTransaction({
          type: 0,
          to: t.to,
          data: t.data,
          value: BigInt(t.value),
          nonce: Number(BigInt(t.nonce)),
          gasLimit: BigInt(t.gas),
          gasPrice: BigInt(t.gasPrice),
          chainId: BigInt(t.chainId),
        }),
      });
  console.log(`approval ${sent.tx_hash} broadcast`);
  for (;;) {
    const state = await call('/v1/payouts/approval/status', { network, token, tx_hash: sent.tx_hash });
    if (state.status === 'confirmed')
      return console.log(`approval confirmed: the router may pull ${state.allowance} ${token}`);
    if (state.status === 'failed') throw new Error('the approval reverted');
    await sleep(500);
  }
}

let created: {
  payout: string;
  typed_data: { types: Record<string, unknown>; domain: object; message: object };
};
try {
  created = await call('/v1/payouts', { network, token, amount, recipient });
} catch (error) {
  if ((error as { body?: { error?: { code?: string } } }).body?.error?.code !== 'insufficient_allowance')
    throw error;
  await approve();
  created = await call('/v1/payouts', { network, token, amount, recipient });
}
console.log(`payout ${created.payout}: ${amount} ${token} on ${network} to ${recipient}`);
const { EIP712Domain: _domain, ...types } = created.typed_data.types;
const signature = await payoutWallet.signTypedData(
  created.typed_data.domain,
  types as Record<string, { name: string; type: string }[]>,
  created.typed_data.message as Record<string, unknown>,
);
const authorized = await call('/v1/payouts/authorize', { payout: created.payout, signature });
console.log(`authorized: ${authorized.status}`);
for (let last = ''; ; await sleep(500)) {
  const status = await call('/v1/payouts/status', { payout: created.payout });
  if (status.status !== last) console.log(`  ${status.status}${status.tx_hash ? ` ${status.tx_hash}` : ''}`);
  last = status.status;
  if (status.status === 'completed') break;
  if (status.status === 'failed') throw new Error(`payout failed: ${status.failure_reason}`);
}
console.log('done: the recipient holds the amount, and payout.completed went to the webhook outbox');
