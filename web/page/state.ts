import type { LinkInfo, StepResponse } from './api.ts';
import type { DiscoveredWallet, Eip1193 } from './wallet.ts';

/**
 * What the hosted page knows, in one place: every part reads and changes this state, then asks for
 * `render()`; the view (view.ts) is the only part that turns it into elements.
 */

/** The link's token: the last segment of `/p/{token}`. */
export const token = decodeURIComponent(location.pathname.split('/').pop() ?? '');
/** Embedded (by the SDK or any page): outcomes are told to the parent and there is no redirect. */
export const framed = window.parent !== window;

export const TERMINAL = new Set(['completed', 'failed', 'reverted']);
/** Steps where the link's expiry still applies (no payment reported yet). */
export const OPEN_STEPS = new Set([
  'network_select',
  'connect_wallet',
  'token_select',
  'enter_amount',
  'awaiting_approval',
  'awaiting_payment',
]);

export interface State {
  info?: LinkInfo;
  step?: StepResponse;
  /** Link not valid / expired: the whole page is that message. */
  gone?: 'not_found' | 'expired';
  busy: boolean;
  error?: { text: string; retry?: () => void };
  notice?: string;
  /** Wallets to choose from, while the player chooses. */
  choosing?: { wallets: DiscoveredWallet[]; pick(wallet: Eip1193): void };
  noWallet?: boolean;
  wallet?: Eip1193;
  redirectIn?: number;
  /** A terminal step was shown: nothing changes the page any more. */
  ended?: boolean;
  /** The live status channel, once started. */
  live?: { stop(): void };
}

export const state: State = { busy: false };

let paint: (focusHeading: boolean) => void = () => {};

/** Sets what `render` draws with (once, at start). */
export function setPainter(painter: (focusHeading: boolean) => void): void {
  paint = painter;
}

/** Draws the page from the state again; after a step change, `focusHeading` moves focus to its heading. */
export function render(focusHeading = false): void {
  paint(focusHeading);
}
