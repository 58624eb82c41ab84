/**
 * A complete webhook receiver (Node.js, no dependencies besides verify-webhook.ts), as the README
 * shows it: GATEWAY_API_SECRET=sk_… npx tsx sdk/example-receiver.ts (listens on port 3000).
 */
import { createServer } from 'node:http';
import { verifyWebhook } from './verify-webhook.ts';

const secret = process.env.GATEWAY_API_SECRET!; // the API key secret, shown once when the key was issued
const processed = new Set<string>(); // use a table with a unique X-Idempotency-Key column in production

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const result = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
    if (!result.ok) {
      res.writeHead(401).end(result.reason);
      return;
    }
    // Retries and operator resends carry the same key: do the work once, answer 2xx every time.
    if (!processed.has(result.idempotencyKey)) {
      processed.add(result.idempotencyKey);
      const body = result.payload;
      switch (result.event) {
        case 'payment.completed':
          console.log('credit order', body.external_order_id, body.amount, body.token);
          break;
        case 'deposit.confirmed':
          console.log('credit player', body.player_id, body.credited, body.token);
          break;
        case 'payout.completed':
          console.log('mark withdrawal paid', body.external_id);
          break;
        case 'payment.failed':
        case 'payout.failed':
          console.log('failed', result.event, body.failure_reason ?? '');
          break;
      }
    }
    res.writeHead(204).end();
  });
}).listen(3000);
