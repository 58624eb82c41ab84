/**
 * Walks one deposit session end to end against a running `npm start`, as a merchant backend and a
 * player wallet would: signed REST calls from the running instance's `devstack.json` (under DATA_DIR,
 * `.data` by default, as for `npm start`), real transactions from a demo player, then polling until the
 * chain follower settles it. Usage: npm run demo -- [eth|bsc] [USDT|USDC|DAI] [amount]
 * As another merchant than the demo one: API_KEY=key_… API_SECRET=sk_… npm run demo
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { JsonRpcProvider, Wallet } from 'ethers';
import { signedHeaders } from '../src/modules/auth/request-signing.ts';

interface Devstack {
  base_url: string;
  networks: Record<string, { rpc_url: string }>;
  merchant: { api_key: string; api_secret: string };
  players: Array<{ address: string; private_key: string }>;
}
interface Step {
  step: string;
  status: string;
  session: string;
  wallet_action?: {
    method: string;
    params: Array<{ from: string; to: string; data: string; value: string }>;
  };
  submit_action?: string;
}

const [network = 'eth', token = 'USDC', amount = '25'] = process.argv.slice(2);
const stack = JSON.parse(
  readFileSync(path.join(process.env.DATA_DIR || '.data', 'devstack.json'), 'utf8'),
) as Devstack;
const player = stack.players[0]!;
const apiKey = process.env.API_KEY || stack.merchant.api_key;
const apiSecret = process.env.API_SECRET || stack.merchant.api_secret;
// No response cache: ethers would otherwise answer the payment's nonce query from the approval's,
// a moment earlier, and the payment would reuse the approval's nonce ("nonce too low").
const provider = new JsonRpcProvider(stack.networks[network]!.rpc_url, undefined, { cacheTimeout: -1 });
const wallet = new Wallet(player.private_key, provider);

async function call(target: string, body: unknown): Promise<Step> {
  const raw = JSON.stringify(body);
  const headers = signedHeaders(apiKey, apiSecret, {
    method: 'POST',
    target,
    body: raw,
  });
  const res = await fetch(`${stack.base_url}${target}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: raw,
  });
  const json = (await res.json()) as Step & { error?: { code: string; message: string } };
  if (!res.ok)
    throw Object.assign(new Error(`${target}: ${res.status} ${json.error?.code} ${json.error?.message}`), {
      code: json.error?.code,
    });
  return json;
}

/** Sends the wallet action's transaction from the player; `mined` waits for its receipt. */
async function sign(step: Step, mined: boolean): Promise<string> {
  const tx = step.wallet_action!.params[0]!;
  const nonce = await provider.getTransactionCount(wallet.address, 'pending');
  const sent = await wallet.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value), nonce });
  if (mined) await sent.wait();
  return sent.hash;
}

let step = await call('/v1/cashier/init', {
  external_order_id: `demo-${Date.now()}`,
  network,
  token,
  amount,
  player_id: 'demo-player',
});
console.log(`session ${step.session}: ${step.step}`);
step = await call('/v1/cashier/step', {
  session: step.session,
  action: 'wallet_connected',
  value: player.address,
});
console.log(`→ ${step.step}`);
if (step.step === 'awaiting_approval') {
  // The approval must be mined before the payment is sent (rule 3).
  const hash = await sign(step, true);
  for (;;) {
    try {
      step = await call('/v1/cashier/step', {
        session: step.session,
        action: 'approval_submitted',
        value: hash,
      });
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== 'unavailable') throw error;
      await sleep(500);
    }
  }
  console.log(`approved (${hash}) → ${step.step}`);
}
// Report the payment as soon as the wallet returns its hash, as a wallet integration does.
const hash = await sign(step, false);
step = await call('/v1/cashier/step', {
  session: step.session,
  action: step.submit_action ?? 'signature_submitted',
  value: hash,
});
console.log(`paid (${hash}) → ${step.step}`);
while (step.status !== 'completed' && step.status !== 'failed') {
  await sleep(1000);
  step = await call('/v1/cashier/status', { session: step.session });
  console.log(`… ${step.step} (${step.status})`);
}
console.log(`order ${step.status}`);
// The demo merchant's webhooks go to the embedded stack's inbox; wait for this session's.
for (let i = 0; i < (process.env.API_KEY ? 0 : 20); i++) {
  const inbox = (await (await fetch(`${stack.base_url}/dev/webhook-inbox`)).json()) as {
    deliveries: Array<{ verified: boolean; event?: string; body: { session_id?: string } }>;
  };
  const hook = inbox.deliveries.find((d) => d.body.session_id === step.session);
  if (hook) {
    const signature = hook.verified ? 'verified' : 'NOT verified';
    console.log(`webhook ${hook.event} received by the dev inbox, signature ${signature}`);
    break;
  }
  await sleep(500);
}
process.exit(step.status === 'completed' ? 0 : 1);
