import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.ts';
import { MAX_WS_MESSAGE_BYTES, WS_INIT_TIMEOUT_MS } from '../../src/http/server.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Clients that hold a connection without finishing their request are cut off in seconds: slow
 * headers, a trickling body, a WebSocket that never completes the graphql-ws handshake, an oversized
 * WebSocket frame. The server runs with short limits here; the defaults are checked separately.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    env: {
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '2000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '1500',
    },
  });
});
afterAll(() => t?.close());

/** Opens a raw connection, drips `chunks` every `everyMs`, and resolves when the server closes it. */
function drip(chunks: string[], everyMs: number): Promise<{ closedAfterMs: number; received: string }> {
  const { port, hostname } = new URL(t.http.url);
  const started = Date.now();
  return new Promise((resolve) => {
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const socket: Socket = connect(Number(port), hostname, () => {
      let i = 0;
      const next = () => {
        if (socket.destroyed || i >= chunks.length) return;
        socket.write(chunks[i++]!);
        timer = setTimeout(next, everyMs);
      };
      next();
    });
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ closedAfterMs: Date.now() - started, received });
    });
  });
}

it('has deliberate defaults: headers within 10 s, a whole request within 30 s, idle kept-alive 65 s', () => {
  const config = loadConfig({});
  expect(config.httpHeadersTimeoutMs).toBe(10_000);
  expect(config.httpRequestTimeoutMs).toBe(30_000);
  // Longer than a load balancer's usual 60 s idle limit, so the proxy closes an idle connection first.
  expect(config.httpKeepAliveTimeoutMs).toBe(65_000);
  expect(t.http.server.headersTimeout).toBe(1000);
  expect(t.http.server.requestTimeout).toBe(2000);
  expect(t.http.server.keepAliveTimeout).toBe(1500);
});

it('a kept-alive connection says how long it may idle, and is closed once idle that long', async () => {
  const r = await drip(['GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n'], 0);
  expect(r.received).toMatch(/^HTTP\/1\.1 200/);
  expect(r.received).toMatch(/\r\nkeep-alive: timeout=1\r\n/i);
  expect(r.closedAfterMs).toBeGreaterThanOrEqual(1500);
});

it('a client sending one header byte every 500 ms is cut off at the header timeout with a 408 envelope', async () => {
  const request =
    'GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n';
  const r = await drip(request.split(''), 500);
  expect(r.closedAfterMs).toBeLessThan(4_000);
  expect(r.received).toMatch(/^HTTP\/1\.1 408/);
  expect(r.received).toMatch(/"code":"validation"/);
});

it('a body trickling in is cut off at the request timeout', async () => {
  const head =
    'POST /v1/cashier/init HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n';
  const r = await drip([head, ...'{"a":"'.split(''), ...'x'.repeat(100).split('')], 400);
  expect(r.closedAfterMs).toBeLessThan(5_000);
});

it('an idle connection that sends nothing is closed too', async () => {
  const r = await drip([], 1000);
  expect(r.closedAfterMs).toBeLessThan(4_000);
});

it('a WebSocket upgrade request that never completes its headers is cut off', async () => {
  const upgrade =
    'GET /graphql HTTP/1.1\r\nhost: x\r\nconnection: upgrade\r\nupgrade: websocket\r\n' +
    'sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
  const r = await drip([upgrade, 'sec-websocket-protocol: graphql-transport-ws'], 5000);
  expect(r.closedAfterMs).toBeLessThan(4_000);
});

it('a WebSocket client that never sends connection_init is dropped', async () => {
  const started = Date.now();
  const ws = new WebSocket(`${t.http.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
  expect(code).toBe(4408);
  expect(Date.now() - started).toBeLessThan(WS_INIT_TIMEOUT_MS + 2_000);
});

it('a WebSocket message over 64 KiB closes the connection (1009), smaller ones are served', async () => {
  expect(MAX_WS_MESSAGE_BYTES).toBe(64 * 1024);
  const ws = new WebSocket(`${t.http.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  await new Promise((resolve) => ws.on('open', resolve));
  ws.send(JSON.stringify({ type: 'connection_init' }));
  const ack = await new Promise<string>((resolve) => ws.once('message', (m) => resolve(String(m))));
  expect(JSON.parse(ack)).toEqual({ type: 'connection_ack' });
  const closed = new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
  ws.send(
    JSON.stringify({
      id: '1',
      type: 'subscribe',
      payload: { query: `{ __typename }#${'x'.repeat(70_000)}` },
    }),
  );
  expect(await closed).toBe(1009);
});
