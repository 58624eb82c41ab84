import { ApiError, api, type StepResponse } from './api.ts';

/**
 * Live status: the token's `hostedStepChanged` subscription over WebSocket (the `graphql-ws`
 * protocol, spoken by hand to stay dependency-free); while the socket cannot connect or has dropped,
 * `/v1/hpp/status` is polled and the socket retried with backoff.
 */

/** How often the status is polled while there is no socket. */
export const POLL_MS = 2_000;
/** A socket that has not acknowledged by then counts as failed. */
const CONNECT_TIMEOUT_MS = 5_000;
const RETRY_MIN_MS = 1_000;
/** After the socket is acknowledged, the status is read once more this much later. */
const SETTLE_MS = 1_000;
const RETRY_MAX_MS = 30_000;

const QUERY = `subscription ($token: String!) { hostedStepChanged(token: $token) {
  step session status
  components { type text options { label action value note disabled reason } name label placeholder action status }
  wallet_action: walletAction { method params chain_id: chainId }
  submit_action: submitAction
} }`;

export interface LiveHandlers {
  step(step: StepResponse): void;
  /** The token no longer opens the session (`not_found`) or the link expired (`expired`). */
  gone(code: string): void;
  /** Which channel carries the status now. */
  mode(mode: 'push' | 'poll'): void;
  /** The subscription is surely running on the server: the last catch-up read has been sent. */
  settled?(): void;
}

type Message = { type: string; id?: string; payload?: unknown };
type GraphqlErrors = { message: string; extensions?: { code?: string } }[];

export function startLive(token: string, handlers: LiveHandlers): { stop(): void } {
  let stopped = false;
  let socket: WebSocket | undefined;
  let pollTimer: ReturnType<typeof setInterval> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retryMs = RETRY_MIN_MS;

  const refresh = () =>
    api.status(token).then(
      (step) => step && handlers.step(step),
      (error: unknown) => {
        if (error instanceof ApiError && (error.status === 404 || error.status === 410))
          handlers.gone(error.code);
      },
    );

  const startPolling = () => {
    if (pollTimer || stopped) return;
    handlers.mode('poll');
    pollTimer = setInterval(refresh, POLL_MS);
    void refresh();
  };
  const stopPolling = () => {
    clearInterval(pollTimer);
    pollTimer = undefined;
  };

  const onErrors = (errors: GraphqlErrors) => {
    const code = errors[0]?.extensions?.code;
    if (code === 'not_found' || code === 'expired') {
      stop();
      handlers.gone(code);
    }
  };

  function connect() {
    if (stopped) return;
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
    let acked = false;
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, 'graphql-transport-ws');
    } catch {
      return dropped();
    }
    socket = ws;
    const timeout = setTimeout(() => ws.close(), CONNECT_TIMEOUT_MS);
    ws.onopen = () => ws.send(JSON.stringify({ type: 'connection_init' }));
    ws.onmessage = (event) => {
      let msg: Message;
      try {
        msg = JSON.parse(String(event.data)) as Message;
      } catch {
        return;
      }
      if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
      else if (msg.type === 'connection_ack') {
        acked = true;
        clearTimeout(timeout);
        retryMs = RETRY_MIN_MS;
        ws.send(
          JSON.stringify({ id: '1', type: 'subscribe', payload: { query: QUERY, variables: { token } } }),
        );
        stopPolling();
        handlers.mode('push');
        // A change between the last read and the subscription starting on the server (which the
        // protocol does not acknowledge) would otherwise be missed: read again now and once it surely has.
        void refresh();
        setTimeout(() => {
          if (socket !== ws || stopped) return;
          void refresh();
          handlers.settled?.();
        }, SETTLE_MS);
      } else if (msg.type === 'next') {
        const payload = msg.payload as {
          data?: { hostedStepChanged?: StepResponse };
          errors?: GraphqlErrors;
        };
        if (payload.errors?.length) onErrors(payload.errors);
        else if (payload.data?.hostedStepChanged) handlers.step(payload.data.hostedStepChanged);
      } else if (msg.type === 'error') onErrors(msg.payload as GraphqlErrors);
      else if (msg.type === 'complete') ws.close();
    };
    ws.onerror = () => ws.close();
    ws.onclose = () => {
      clearTimeout(timeout);
      if (socket === ws) socket = undefined;
      if (!acked) retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      dropped();
    };
  }

  function dropped() {
    if (stopped) return;
    startPolling();
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, retryMs);
  }

  function stop() {
    stopped = true;
    stopPolling();
    clearTimeout(retryTimer);
    socket?.close();
  }

  connect();
  return { stop };
}
