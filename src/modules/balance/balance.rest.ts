import { z } from 'zod';
import { defineRoutes } from '../../rest/route.ts';

export const balanceResponse = z.object({
  wallet: z.string().describe('The EVM settlement wallet (the first EVM network’s in network-file order).'),
  balances: z.array(
    z.object({
      network: z.string(),
      token: z.string(),
      address: z.string().describe('Token contract (T… on tron).'),
      decimals: z.number().int(),
      wallet: z.string().describe('The settlement wallet this entry reads (T… on tron).'),
      amount: z.string().optional().describe('Whole units; absent when the read failed.'),
      raw: z.string().optional().describe('Base units.'),
      error: z.string().optional().describe('Present instead of amount when this read failed.'),
    }),
  ),
});

/** `GET /v1/balance` (section 4.20, D13). */
export const balanceRoutes = defineRoutes([
  {
    method: 'GET',
    path: '/v1/balance',
    auth: 'signed',
    summary: 'Balances of the settlement wallets',
    description:
      'Every token of every network the merchant has a settlement wallet on, in network-file order, read now. A ' +
      'token whose read fails, and every token of a network whose nodes do not answer, carries error instead of ' +
      'amount; the response is still 200.',
    operation: `query { result: balance { wallet balances { network token address decimals wallet amount raw error } } }`,
    response: balanceResponse,
    errors: [400, 401, 403, 503],
    tags: ['balance'],
  },
]);
