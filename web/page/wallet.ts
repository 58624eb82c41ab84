import { type TextKey, tr } from './i18n.ts';

/**
 * EIP-1193 wallets: discovered with EIP-6963 (every extension announces itself), falling back to the
 * one injected `window.ethereum`. Errors become a message the player can act on.
 */

export interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export interface WalletInfo {
  uuid: string;
  name: string;
  /** A data: URI (EIP-6963). */
  icon: string;
  rdns?: string;
}

export interface DiscoveredWallet {
  info: WalletInfo;
  provider: Eip1193;
}

const found = new Map<string, DiscoveredWallet>();

/** Starts listening for EIP-6963 announcements and asks every wallet to announce itself. */
export function discoverWallets(): void {
  window.addEventListener('eip6963:announceProvider', (event) => {
    const detail = (event as CustomEvent<DiscoveredWallet>).detail;
    if (detail?.info?.uuid && typeof detail.provider?.request === 'function')
      found.set(detail.info.uuid, detail);
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
}

/** The wallets to choose from: the announced ones, else `window.ethereum`, else none. */
export function availableWallets(): DiscoveredWallet[] {
  if (found.size > 0) return [...found.values()];
  const injected = (window as unknown as { ethereum?: Eip1193 }).ethereum;
  return injected && typeof injected.request === 'function'
    ? [{ info: { uuid: 'injected', name: 'Browser wallet', icon: '' }, provider: injected }]
    : [];
}

/** A wallet failure with the message to show. */
export class WalletError extends Error {
  constructor(message: string) {
    super(message);
  }
}

interface RpcError {
  code?: number;
  message?: string;
  data?: { originalError?: { code?: number } };
}

/** The player-facing message for an EIP-1193 error. */
export function explain(error: unknown, chainId?: string): string {
  if (error instanceof WalletError) return error.message;
  const e = (error ?? {}) as RpcError;
  const code = e.code ?? e.data?.originalError?.code;
  const message = String(e.message ?? error);
  const key: TextKey | undefined =
    code === 4001 || /user (rejected|denied)|rejected by user|cancel/i.test(message)
      ? 'rejected'
      : code === -32002
        ? 'pending_request'
        : code === 4902 || /unrecognized chain|unknown chain/i.test(message)
          ? 'unknown_chain'
          : /revert/i.test(message)
            ? 'reverted'
            : undefined;
  if (key === 'unknown_chain') return tr(key, { chain: chainId ? Number.parseInt(chainId, 16) : '?' });
  return key ? tr(key) : tr('wallet_error', { message: message.slice(0, 200) });
}

/** Asks for the wallet's accounts; the first is the one the wallet has selected. */
export async function requestAccount(wallet: Eip1193): Promise<string> {
  const accounts = (await wallet.request({ method: 'eth_requestAccounts' })) as string[];
  const account = accounts?.[0];
  if (!account) throw new WalletError(tr('no_accounts'));
  return account.toLowerCase();
}

/** Switches the wallet to `chainId` (hex) unless it is there already. */
export async function ensureChain(wallet: Eip1193, chainId: string | null | undefined): Promise<void> {
  if (!chainId) return;
  const current = (await wallet.request({ method: 'eth_chainId' }).catch(() => undefined)) as
    | string
    | undefined;
  if (current && BigInt(current) === BigInt(chainId)) return;
  await wallet.request({ method: 'wallet_switchEthereumChain', params: [{ chainId }] });
}

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

/** Refuses when the wallet's account is not the one the transaction is from. */
export function checkAccount(account: string, params: unknown[]): void {
  const from = (params[0] as { from?: string } | undefined)?.from?.toLowerCase();
  if (from && from !== account)
    throw new WalletError(tr('wrong_account', { got: short(account), want: short(from) }));
}

/** Deep links that open this page inside common wallet apps' browsers (no injected wallet here). */
export function deepLinks(href: string): { name: string; url: string }[] {
  const bare = href.replace(/^https?:\/\//, '');
  const encoded = encodeURIComponent(href);
  return [
    { name: 'MetaMask', url: `https://metamask.app.link/dapp/${bare}` },
    { name: 'Trust Wallet', url: `https://link.trustwallet.com/open_url?coin_id=60&url=${encoded}` },
    { name: 'Coinbase Wallet', url: `https://go.cb-w.com/dapp?cb_url=${encoded}` },
  ];
}
