/**
 * Browser support for the hosted page: Debian's chromium driven by playwright-core, a test EIP-1193
 * wallet (an init script that forwards every request to a node-side signer holding a development
 * key on the test anvil chain), and a settling loop that runs the chain listener while a page waits.
 */
import { existsSync } from 'node:fs';
import type { JsonRpcProvider, Wallet } from 'ethers';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { followerOf, mine, type SessionFixture } from '../session/support.ts';

export const CHROMIUM = '/usr/bin/chromium';
/** CI installs chromium (.ci/run) and never skips; elsewhere the browser tests need it installed. */
export const noBrowser = !existsSync(CHROMIUM) && !process.env.CI;
// The default reporter lists no skipped test: say why, once per file that drives the browser.
if (noBrowser) console.warn(`browser tests skipped: ${CHROMIUM} is not installed; CI installs it (.ci/run)`);

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface RpcError {
  code: number;
  message: string;
}

/** The node side of the test wallet: what it answers and what it was asked. */
export interface TestWallet {
  account: Wallet;
  chainId: string;
  /** Every method requested, in order. */
  calls: string[];
  /** The next request of `method` fails with `error` (a rejection, a closed popup, …). */
  failNext(method: string, error: RpcError): void;
}

/**
 * Installs the test wallet in every page and frame of `context`: `window.ethereum` and an EIP-6963
 * announcement. It starts on mainnet (0x1) so the page must switch to the step's chain; it knows only
 * mainnet and the anvil chain (anything else is 4902, as real wallets answer).
 */
export async function installWallet(
  context: BrowserContext,
  f: SessionFixture,
  account: Wallet,
): Promise<TestWallet> {
  // Waits fail well inside the test's own timeout, naming what they waited for.
  context.setDefaultTimeout(20_000);
  const anvilChain = `0x${Number((await f.provider.getNetwork()).chainId).toString(16)}`;
  const failures = new Map<string, RpcError>();
  const wallet: TestWallet = {
    account,
    chainId: '0x1',
    calls: [],
    failNext: (method, error) => failures.set(method, error),
  };
  await context.exposeFunction('__cashierTestWallet', async (method: string, paramsJson: string) => {
    wallet.calls.push(method);
    const params = JSON.parse(paramsJson) as unknown[];
    const failure = failures.get(method);
    if (failure) {
      failures.delete(method);
      return JSON.stringify({ error: failure });
    }
    try {
      return JSON.stringify({ result: await answer(method, params) });
    } catch (error) {
      return JSON.stringify({ error: { code: -32603, message: (error as Error).message } });
    }
  });
  async function answer(method: string, params: unknown[]): Promise<unknown> {
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [wallet.account.address];
      case 'eth_chainId':
        return wallet.chainId;
      case 'wallet_switchEthereumChain': {
        const chainId = (params[0] as { chainId: string }).chainId;
        if (BigInt(chainId) !== BigInt(anvilChain) && BigInt(chainId) !== 1n)
          throw Object.assign(new Error('Unrecognized chain ID'), { code: 4902 });
        wallet.chainId = chainId;
        return null;
      }
      case 'eth_sendTransaction':
        if (BigInt(wallet.chainId) !== BigInt(anvilChain)) throw new Error('wallet is on another chain');
        return broadcast(wallet.account, params[0] as { to: string; data: string; value: string });
      default:
        throw new Error(`test wallet: ${method} not supported`);
    }
  }
  await context.addInitScript(() => {
    const call = (window as unknown as { __cashierTestWallet(m: string, p: string): Promise<string> })
      .__cashierTestWallet;
    const provider = {
      async request(args: { method: string; params?: unknown[] }) {
        const answer = JSON.parse(await call(args.method, JSON.stringify(args.params ?? []))) as {
          result?: unknown;
          error?: { code: number; message: string };
        };
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
        return answer.result;
      },
      on() {},
      removeListener() {},
    };
    (window as unknown as { ethereum: unknown }).ethereum = provider;
    const info = Object.freeze({
      uuid: '6b1c8d2e-0000-4000-8000-000000000001',
      name: 'Test Wallet',
      icon: 'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/%3E',
      rdns: 'test.cashier.wallet',
    });
    const announce = () =>
      window.dispatchEvent(
        new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }),
      );
    window.addEventListener('eip6963:requestProvider', announce);
    announce();
  });
  return wallet;
}

/**
 * Signs and sends a transaction as a browser wallet does: the hash is the answer once it is sent (here
 * mined, anvil mines at once), whether or not it reverted; gas is not estimated, so a reverting call
 * is still sent.
 */
async function broadcast(account: Wallet, tx: { to: string; data: string; value: string }): Promise<string> {
  const provider = account.provider as JsonRpcProvider;
  const nonce = Number(BigInt(await provider.send('eth_getTransactionCount', [account.address, 'pending'])));
  const sent = await account.sendTransaction({
    to: tx.to,
    data: tx.data,
    value: BigInt(tx.value),
    nonce,
    gasLimit: 300_000n,
  });
  await provider.waitForTransaction(sent.hash);
  return sent.hash;
}

/** Console errors, page errors and failed requests of a page: the page must have none. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  return problems;
}

/** Runs the chain listener and mines a block every `ms` until stopped, as the worker would. */
export function settling(f: SessionFixture, ms = 100) {
  const follower = followerOf(f);
  let on = true;
  let doing = 'idle';
  const loop = (async () => {
    while (on) {
      doing = 'follower pass';
      await follower.pass();
      doing = 'mining';
      await mine(f, 1);
      doing = 'idle';
      await new Promise((r) => setTimeout(r, ms));
    }
  })();
  return {
    /** Stops the loop; one stuck in a pass or in mining is an error naming where, not a silent hang. */
    async stop() {
      on = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stuck = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`settling loop stuck in ${doing}`)), 15_000);
      });
      try {
        await Promise.race([loop, stuck]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * A merchant's site on another origin (127.0.0.1, where links say localhost): `/shop?link=…` embeds the
 * link with the SDK and records the callbacks and every cashier message in `window.seen`; any other
 * path answers a plain page (the return URL lands there).
 */
export async function startMerchantSite(serviceUrl: string) {
  const { createServer } = await import('node:http');
  const shop = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>
<h1>Shop</h1><button id="pay" type="button">Pay with crypto</button>
<script src="${serviceUrl}/hpp/sdk.js"></script>
<script>
window.seen = { callbacks: [], messages: [] };
addEventListener('message', function (e) {
  if (e.origin !== location.origin && e.data && e.data.source === 'crypto-cashier') window.seen.messages.push(e.data.type);
});
document.getElementById('pay').addEventListener('click', function () {
  window.handle = CryptoCashier.open({
    url: new URLSearchParams(location.search).get('link'),
    onCompleted: function () { window.seen.callbacks.push('completed'); },
    onFailed: function () { window.seen.callbacks.push('failed'); },
    onClose: function () { window.seen.callbacks.push('close'); },
  });
});
</script></body></html>`;
  const server = createServer((req, res) => {
    const body = req.url?.startsWith('/shop')
      ? shop
      : '<!doctype html><title>Back at the shop</title><p>Back';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
