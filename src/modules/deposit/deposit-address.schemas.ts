import { z } from 'zod';
import { reference } from '../../lib/validation.ts';

/** Request and response of `POST /v1/wallet/address` (section 4.21, D8), request in camelCase. */

export const depositAddressRequest = z
  .object({
    playerId: reference.describe(
      'The merchant’s player reference: 1 to 128 printable ASCII characters; never written on chain.',
    ),
    network: z.string().min(1).max(64).describe('A network id of the service (eth, bsc, tron, …).'),
  })
  .meta({ examples: [{ player_id: 'player-42', network: 'eth' }] });

export const depositAddressResponse = z.object({
  player_id: z.string(),
  network: z.string(),
  address: z
    .string()
    .describe(
      'The standing deposit address: EIP-55 0x on EVM networks, T… on tron. Same pair, same address.',
    ),
  tokens: z.array(z.string()).describe('Token symbols credited at this address.'),
});
