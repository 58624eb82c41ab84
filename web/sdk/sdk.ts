/**
 * `CryptoCashier.open({url, onCompleted, onFailed, onClose})`: the hosted page in an accessible modal
 * iframe. Messages are accepted only from that iframe, from the page's origin and of the documented
 * shape `{source: "crypto-cashier", type}` (section 4.10). Dependency-free.
 */

export interface OpenOptions {
  /** The hosted link (`url` of POST /v1/hpp/sessions). */
  url: string;
  onCompleted?: () => void;
  onFailed?: () => void;
  /** The player closed the modal (close button, Esc). */
  onClose?: () => void;
  /** The page loaded (`cashier:ready`). */
  onReady?: () => void;
}

export interface Handle {
  /** Removes the modal (onClose is not called: the merchant closed it). */
  close(): void;
}

const TYPES = new Set(['cashier:ready', 'cashier:completed', 'cashier:failed', 'cashier:close']);

function css(el: HTMLElement, style: Partial<CSSStyleDeclaration>): void {
  // CSSOM assignments, not style attributes: they work under the embedder's strict CSP.
  Object.assign(el.style, style);
}

function open(options: OpenOptions): Handle {
  const src = new URL(options.url, location.href);
  const origin = src.origin;
  const previous = document.activeElement as HTMLElement | null;
  const overflow = document.body.style.overflow;

  const overlay = document.createElement('div');
  css(overlay, {
    position: 'fixed',
    inset: '0',
    zIndex: '2147483647',
    background: 'rgba(0,0,0,.55)',
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'center',
  });
  const dialog = document.createElement('div');
  dialog.setAttribute('role', 'dialog');
  dialog.setAttribute('aria-modal', 'true');
  dialog.setAttribute('aria-label', 'Payment');
  css(dialog, {
    position: 'relative',
    width: 'min(480px, 100vw)',
    height: 'min(720px, 100vh)',
    background: '#fff',
    borderRadius: '12px',
    overflow: 'hidden',
    boxShadow: '0 10px 40px rgba(0,0,0,.35)',
  });
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = '×';
  button.setAttribute('aria-label', 'Close payment');
  css(button, {
    position: 'absolute',
    top: '6px',
    right: '6px',
    width: '40px',
    height: '40px',
    border: '0',
    borderRadius: '20px',
    background: 'rgba(0,0,0,.08)',
    color: '#222',
    font: '24px/1 system-ui,sans-serif',
    cursor: 'pointer',
  });
  const frame = document.createElement('iframe');
  frame.src = src.toString();
  frame.title = 'Payment';
  frame.setAttribute('allow', 'clipboard-write');
  frame.setAttribute('referrerpolicy', 'no-referrer');
  css(frame, { width: '100%', height: '100%', border: '0', display: 'block' });
  // Focus that leaves the dialog either way comes back to it (the iframe's own tab order is inside).
  const guard = (to: () => HTMLElement) => {
    const el = document.createElement('span');
    el.tabIndex = 0;
    el.addEventListener('focus', () => to().focus());
    return el;
  };
  dialog.append(
    guard(() => button),
    frame,
    button,
    guard(() => frame),
  );
  overlay.append(dialog);

  let closed = false;
  const close = (byPlayer: boolean) => {
    if (closed) return;
    closed = true;
    window.removeEventListener('message', onMessage);
    document.removeEventListener('keydown', onKey, true);
    overlay.remove();
    document.body.style.overflow = overflow;
    previous?.focus?.();
    if (byPlayer) options.onClose?.();
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    }
  };
  const onMessage = (event: MessageEvent) => {
    if (event.source !== frame.contentWindow || event.origin !== origin) return;
    const data = event.data as { source?: unknown; type?: unknown } | null;
    if (!data || typeof data !== 'object' || data.source !== 'crypto-cashier') return;
    if (typeof data.type !== 'string' || !TYPES.has(data.type)) return;
    if (data.type === 'cashier:ready') options.onReady?.();
    else if (data.type === 'cashier:completed') options.onCompleted?.();
    else if (data.type === 'cashier:failed') options.onFailed?.();
    else close(true);
  };
  button.addEventListener('click', () => close(true));
  window.addEventListener('message', onMessage);
  document.addEventListener('keydown', onKey, true);
  document.body.style.overflow = 'hidden';
  document.body.append(overlay);
  frame.focus();
  return { close: () => close(false) };
}

(window as unknown as { CryptoCashier: unknown }).CryptoCashier = { open, version: 1 };
