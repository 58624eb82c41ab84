/**
 * Walks one standing-address deposit end to end against a running `npm start`: the merchant asks for
 * a player's deposit address, a demo player sends tokens to it, the chain follower credits it once
 * final (deposit.confirmed reaches the embedded stack's webhook inbox), and the sweeper moves it to the
 * merchant's settlement wallet. Keys and chains come from the running instance's `devstack.json`.
 * Usage: npm run demo:address -- [eth|bsc|tron] [USDT|USDC|DAI] [amount] [player_id]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, JsonRpcProvider, parseUnits, Wallet } from 'ethers';
import { toEvmAddress } from '../src/chains/tron/address.ts';
import { signedHeaders } from '../src/modules/auth/request-signing.ts';

interface Devstack {
  base_url: string;
  networks: Record<
    string,
    { rpc_url: string; evm_rpc_url?: string; tokens: Record<string, { address: string; decimals: number }> }
  >;
  merchant: { api_key: string; api_secret: string };
  players: Array<{ address: string; private_key: string }>;
}

const [network = 'eth', token = 'USDT', amount = '20', playerId = 'demo-player-1'] = process.argv.slice(2);
const stack = JSON.parse(
  readFileSync(path.join(process.env.DATA_DIR || '.data', 'devstack.json'), 'utf8'),
) as Devstack;
const chain = stack.networks[network];
if (!chain) throw new Error(`no network ${network} in devstack.json`);
const spec = chain.tokens[token];
if (!spec) throw new Error(`no token ${token} on ${network}`);
const provider = new JsonRpcProvider(chain.evm_rpc_url ?? chain.rpc_url, undefined, { cacheTimeout: -1 });
const player = new Wallet(stack.players[1]!.private_key, provider);
const erc20 = new Contract(
  toEvmAddress(spec.address),
  ['function transfer(address,uint256)', 'function balanceOf(address) view returns (uint256)'],
  player,
);

const body = JSON.stringify({ player_id: playerId, network });
const res = await fetch(`${stack.base_url}/v1/wallet/address`, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    ...signedHeaders(stack.merchant.api_key, stack.merchant.api_secret, {
      method: 'POST',
      target: '/v1/wallet/address',
      body,
    }),
  },
  body,
});
const issued = (await res.json()) as { address: string; error?: { message: string } };
if (!res.ok) throw new Error(`/v1/wallet/address: ${res.status} ${issued.error?.message}`);
console.log(`deposit address of ${playerId} on ${network}: ${issued.address}`);
const address = toEvmAddress(issued.address);

const tx = await erc20.getFunction('transfer')(address, parseUnits(amount, spec.decimals));
await tx.wait();
const hash = String(tx.hash).toLowerCase();
console.log(`sent ${amount} ${token} (${hash})`);

type Delivery = { verified: boolean; event?: string; body: Record<string, unknown> };
let credited: Delivery | undefined;
for (let i = 0; i < 120 && !credited; i++) {
  await sleep(500);
  const inbox = (await (await fetch(`${stack.base_url}/dev/webhook-inbox`)).json()) as {
    deliveries: Delivery[];
  };
  credited = inbox.deliveries.find((d) => d.event === 'deposit.confirmed' && d.body.tx_hash === hash);
}
if (!credited) throw new Error('no deposit.confirmed within a minute');
const b = credited.body;
console.log(
  `webhook deposit.confirmed ${b.deposit_id}: credited ${b.credited} ${token} (fee ${b.fee}), signature ${credited.verified ? 'verified' : 'NOT verified'}`,
);
for (let i = 0; i < 120; i++) {
  if ((await erc20.getFunction('balanceOf')(address)) === 0n) {
    console.log('swept to the settlement wallet');
    process.exit(0);
  }
  await sleep(500);
}
throw new Error('not swept within a minute');
