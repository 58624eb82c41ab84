import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { App } from '../app.ts';
import { evmToTron } from '../chains/tron/address.ts';
import { AppError } from '../errors.ts';
import { newSecret } from '../lib/ids.ts';
import { Merchant } from '../modules/merchant/merchant.entity.ts';
import { DEV_ACCOUNTS } from './accounts.ts';
import type { DevChain } from './chains.ts';
import { WEBHOOK_INBOX_PATH } from './webhook-inbox.ts';

interface ProvisionState {
  merchantId: string;
  apiKeyId: string;
  apiSecret: string;
  operatorToken: string;
}

/**
 * Provisions the demo merchant (settlement wallets on every network, Tron payout wallet, an API key)
 * and an operator token once, keeping their secrets in `<dataDir>/provision.json` so restarts reuse
 * them. Writes `.data/devstack.json` (D10) for people and scripts to read.
 */
export async function provisionDemo(
  app: App,
  dataDir: string,
  chains: DevChain[],
  baseUrl: string,
): Promise<string> {
  const stateFile = path.join(dataDir, 'provision.json');
  const em = app.fork();
  let state = existsSync(stateFile)
    ? (JSON.parse(readFileSync(stateFile, 'utf8')) as ProvisionState)
    : undefined;
  if (state && !(await em.findOne(Merchant, { id: state.merchantId }))) state = undefined;
  if (!state) {
    const merchant = await app.services.merchants.create(em, { name: 'Demo merchant' });
    const key = await app.services.merchants.issueKey(em, merchant.id, 'devstack');
    state = {
      merchantId: merchant.id,
      apiKeyId: key.id,
      apiSecret: key.secret,
      operatorToken: newSecret('opk', 32),
    };
    writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  }
  await app.services.operators.ensureToken(em, 'devstack', state.operatorToken);
  const tronPayout = evmToTron(DEV_ACCOUNTS.tronPayout.address);
  await app.services.merchants.update(em, state.merchantId, { tronPayoutWallet: tronPayout });
  await hookToInbox(app, state.merchantId, `${baseUrl}${WEBHOOK_INBOX_PATH}`);
  for (const chain of chains) {
    const address =
      chain.kind === 'tron' ? evmToTron(DEV_ACCOUNTS.merchant.address) : DEV_ACCOUNTS.merchant.address;
    await app.services.merchants.setSettlementWallet(em, state.merchantId, chain.id, address);
  }

  const devstack = {
    base_url: baseUrl,
    graphql_url: `${baseUrl}/graphql`,
    operator_token: state.operatorToken,
    networks: Object.fromEntries(
      chains.map((c) => [
        c.id,
        {
          rpc_url: c.rpcUrl,
          // The anvil chain behind the Tron facade: where a demo player's TRC-20 transfers are sent.
          ...(c.kind === 'tron' ? { evm_rpc_url: c.evmRpcUrl } : {}),
          chain_id: c.chainId,
          ...(c.kind === 'evm' ? { payment_router: c.contracts.paymentRouter } : {}),
          payout_router: c.contracts.payoutRouter,
          batch_router: c.contracts.batchPayoutRouter,
          forwarder_factory: c.contracts.forwarderFactory,
          tokens: Object.fromEntries(
            Object.values(c.contracts.tokens).map((t) => [
              t.symbol,
              { address: c.kind === 'tron' ? evmToTron(t.address) : t.address, decimals: t.decimals },
            ]),
          ),
        },
      ]),
    ),
    merchant: {
      id: state.merchantId,
      api_key: state.apiKeyId,
      api_secret: state.apiSecret,
      settlement_wallet: DEV_ACCOUNTS.merchant.address,
      payout_wallet: DEV_ACCOUNTS.merchant.address,
      payout_wallet_private_key: DEV_ACCOUNTS.merchant.privateKey,
      tron_payout_wallet: tronPayout,
      tron_payout_private_key: DEV_ACCOUNTS.tronPayout.privateKey,
    },
    players: DEV_ACCOUNTS.players.map((p) => ({ address: p.address, private_key: p.privateKey })),
  };
  const file = devstackFile(dataDir, new URL(baseUrl).port);
  writeFileSync(file, `${JSON.stringify(devstack, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/**
 * The demo merchant's webhooks go to the stack's own inbox, so the outbox runs end to end. With
 * private targets refused (`WEBHOOK_ALLOW_PRIVATE=false`) a loopback inbox is not a valid webhook URL:
 * the stack still starts, with the demo merchant's webhooks off (one set earlier is removed, since
 * nothing could be delivered to it) and a warning saying why.
 */
async function hookToInbox(app: App, merchantId: string, inbox: string): Promise<void> {
  const em = app.fork();
  try {
    await app.services.merchants.update(em, merchantId, { webhookUrl: inbox });
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'validation')) throw error;
    await app.services.merchants.update(em, merchantId, { webhookUrl: null });
    app.logger.warn('the demo merchant has no webhook URL: its inbox is refused as a webhook target', {
      inbox,
      reason: error.message,
    });
  }
}

/**
 * Where this instance describes itself. `devstack.json` belongs to the instance that claimed it
 * (`devstack.owner` holds its pid); while that one lives, another instance on the same DATA_DIR
 * writes `devstack-<port>.json` instead of overwriting it. A claim of a process that is gone is taken
 * over.
 */
export function devstackFile(dataDir: string, port: string, pid = process.pid): string {
  const owner = path.join(dataDir, 'devstack.owner');
  const claimed = existsSync(owner) ? Number(readFileSync(owner, 'utf8').trim()) : undefined;
  if (claimed !== undefined && claimed !== pid && alive(claimed))
    return path.join(dataDir, `devstack-${port}.json`);
  writeFileSync(owner, `${pid}\n`);
  return path.join(dataDir, 'devstack.json');
}

function alive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
