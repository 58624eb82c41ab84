import type { EntityManager } from '../db/orm.ts';
import { addJob } from '../worker/jobs.ts';
import type { RelayKind } from './relay.entity.ts';

/** graphile-worker task that drives one relay request (src/relay/submitter.ts). */
export const RELAY_TASK = 'relay_request';
export const relayJobKey = (id: number | string) => `${RELAY_TASK}:${id}`;

export interface RelayRequestInput {
  kind: RelayKind;
  subjectId: string;
  network: string;
  /** Contract called (`0x`; on `tron` the 20-byte form). */
  to: string;
  /** Calldata, `0x` hex. */
  data: string;
  /** Unix seconds after which the call cannot succeed. */
  deadline?: number | null;
}

/**
 * Asks for a call on chain, in the caller's transaction: the request row and its job commit with the
 * business change, or neither does. Idempotent per (kind, subject): asking again changes nothing and
 * returns the existing request's id.
 */
export async function requestRelay(em: EntityManager, input: RelayRequestInput): Promise<number> {
  const row = (await insertRequest(em, input)) ?? (await insertRequest(em, input));
  if (!row) throw new Error(`relay request ${input.kind}:${input.subjectId} neither inserted nor found`);
  const id = Number(row.id);
  if (row.created) await addJob(em, RELAY_TASK, { id }, { jobKey: relayJobKey(id) });
  return id;
}

/**
 * Inserts the request or finds the existing one. A concurrent insert of the same subject that commits
 * while this statement waits is invisible to its snapshot, so the caller asks once more.
 */
async function insertRequest(em: EntityManager, input: RelayRequestInput) {
  const [row] = await em.execute<{ id: string; created: boolean }[]>(
    `with ins as (
       insert into relay_requests (network, kind, subject_id, "to", data, deadline, status, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, 'queued', now(), now())
       on conflict (kind, subject_id) do nothing
       returning id)
     select id, true as created from ins
     union all
     select id, false from relay_requests where kind = ? and subject_id = ?
     limit 1`,
    [
      input.network,
      input.kind,
      input.subjectId,
      input.to,
      input.data,
      input.deadline ?? null,
      input.kind,
      input.subjectId,
    ],
  );
  return row;
}
