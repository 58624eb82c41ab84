import { handlers } from './actions.ts';
import { ApiError, api } from './api.ts';
import { setLang, tr } from './i18n.ts';
import { startLive } from './live.ts';
import { apply, fail, gone, post } from './session.ts';
import { framed, setPainter, state, token } from './state.ts';
import { paint, remaining } from './view.ts';
import { discoverWallets } from './wallet.ts';

/**
 * The hosted payment page: reads the link and its current step, renders the step's components,
 * runs wallet actions, follows live status, and at a terminal step tells the parent window and
 * (top level, with a return URL) sends the player back.
 *
 * The parts: state.ts (what the page knows), view.ts (drawing it), session.ts (following the
 * session's steps), actions.ts (what the player does), live.ts (push, or reads while it is down).
 */

async function start(): Promise<void> {
  const root = document.getElementById('app')!;
  setPainter((focusHeading) => paint(root, handlers, focusHeading));
  discoverWallets();
  paint(root, handlers, false);
  try {
    const [info, step] = await Promise.all([api.link(token), api.status(token)]);
    state.info = info;
    setLang(info.language);
    document.title = tr('title');
    document.getElementById('brand')!.textContent = tr('brand');
    // No step has been posted yet, so the first read always stands.
    apply(step!);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 410)) gone(error.code);
    else fail(error, () => location.reload());
    post('cashier:ready');
    return;
  }
  post('cashier:ready');
  if (!state.ended) {
    state.live = startLive(token, {
      step: apply,
      gone,
      mode: (mode) => {
        document.body.dataset.live = mode;
        document.body.dataset.liveSettled = 'false';
      },
      settled: () => {
        document.body.dataset.liveSettled = 'true';
      },
    });
  }
  setInterval(() => {
    const el = document.getElementById('time-left');
    if (!el) return;
    el.textContent = remaining();
    // At zero the link is checked again: it answers 410 unless a payment arrived meanwhile.
    if (remaining() === '0:00' && !state.busy)
      void api.status(token).then(
        (step) => step && apply(step),
        (e) => fail(e),
      );
  }, 1000);
  // On key up, so the key's events have all reached this frame before the embedder removes it.
  document.addEventListener('keyup', (event) => {
    if (event.key === 'Escape' && framed) post('cashier:close');
  });
}

void start();
