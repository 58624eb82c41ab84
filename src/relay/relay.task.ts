import { jobTask } from '../db/jobs.ts';
import type { EntityManager } from '../db/orm.ts';
import { sendEvm } from './evm-pipeline.ts';
import { RelayRequest } from './relay.entity.ts';
import type { Relayer } from './relayer.ts';
import { RELAY_REQUEST_JOB } from './request.ts';
import { sendTron } from './tron.ts';

/**
 * `relay_request`: sends one relay request (evm-send.ts, tron.ts). Added with the request in the
 * business transaction, and again by the submitter for a retry after a backoff. Any number of worker
 * processes run it at once: nonces are taken under the relayer wallet's row lock.
 */
export const relayRequestTask = (relayer: Relayer, fork: () => EntityManager) =>
  jobTask(RELAY_REQUEST_JOB, async ({ id }) => {
    const request = await fork().findOne(RelayRequest, { id }, { fields: ['network'] });
    if (!request) return;
    const network = relayer.network(request.network);
    if (network.kind === 'tron') await sendTron(relayer, network, id);
    else await sendEvm(relayer, network, id);
  });
