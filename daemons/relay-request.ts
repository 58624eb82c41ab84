import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { App } from '../src/app.ts';
import { sendEvm } from '../src/relay/evm-send.ts';
import { RelayRequest } from '../src/relay/relay.entity.ts';
import { sendTron } from '../src/relay/tron.ts';

const payloadSchema = z.object({ id: z.number().int().positive() });

/**
 * `relay_request`: sends one relay request (src/relay/evm-send.ts, src/relay/tron.ts). Added with the
 * request in the business transaction, and again by the submitter for a retry after a backoff. Any
 * number of worker processes run it at once: nonces are taken under the relayer wallet's row lock.
 */
export const relayRequest =
  (app: App): Task =>
  async (payload) => {
    const { id } = payloadSchema.parse(payload);
    const relayer = app.services.relayer;
    const request = await app.fork().findOne(RelayRequest, { id }, { fields: ['network'] });
    if (!request) return;
    const network = relayer.network(request.network);
    if (network.kind === 'tron') await sendTron(relayer, network, id);
    else await sendEvm(relayer, network, id);
  };
