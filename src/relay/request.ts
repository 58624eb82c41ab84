import { z } from 'zod';
import { executeBound } from '../db/bulk.ts';
import { addJob, defineJob } from '../db/jobs.ts';
import type { EntityManager } from '../db/orm.ts';
import type { RelayKind } from './relay.entity.ts';

/** The job that drives one relay request (evm-send.ts, tron.ts); one pending job per request. */
export const RELAY_REQUEST_JOB = defineJob({
  name: 'relay_request',
  payload: z.object({ id: z.number().int().positive() }),
  key: ({ id }) => `${JOB_KEY_PREFIX}${id}`,
});
const JOB_KEY_PREFIX = 'relay_request:';

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
  /**
   * The network's sender takes every queued request of the wallet in one send (EVM, evm-pipeline.ts):
   * requests asked for together then need one job per network between them, not one each.
   */
  pipelined?: boolean;
}

/**
 * Asks for a call on chain, in the caller's transaction: the request row and its job commit with the
 * business change, or neither does. Idempotent per (kind, subject): asking again changes nothing and
 * returns the existing request's id.
 */
export async function requestRelay(em: EntityManager, input: RelayRequestInput): Promise<number> {
  const row = (await insertRequest(em, input)) ?? (await insertRequest(em, input));
  if (!row) throw new Error(`relay request ${input.kind}:${input.subjectId} neither inserted nor found`);
  return Number(row.id);
}

/**
 * {@link requestRelay} of many at once, in the caller's transaction: one statement inserts the new
 * requests and adds their jobs (a burst of authorizations written together). Requests of a pipelined
 * network share one job, their first one's: its send claims the network's whole queue (a request it
 * cannot take is another live sender's; one it took and could not sign is queued again with its own
 * job; one stranded otherwise is found by the watcher's sweep, evm-watch.ts), so a burst costs one
 * job to add and none to drop. One that neither inserted nor came back (a concurrent insert of the same
 * subject) is asked again on its own. Returns the ids in the order of `inputs`.
 */
export async function requestRelays(
  em: EntityManager,
  inputs: readonly RelayRequestInput[],
): Promise<number[]> {
  if (inputs.length === 0) return [];
  const pipelined = [...new Set(inputs.filter((i) => i.pipelined).map((i) => i.network))];
  const rows = await executeBound<{ id: string; kind: string; subject_id: string }>(
    em,
    `with ins as (
       insert into relay_requests (network, kind, subject_id, "to", data, deadline, status, created_at, updated_at)
       select v.network, v.kind, v.subject_id, v."to", v.data, v.deadline, 'queued', now(), now()
         from json_to_recordset($1::json) as v(ord int, network text, kind text, subject_id text, "to" text, data text, deadline bigint)
        order by v.ord
       on conflict (kind, subject_id) do nothing
       returning id, kind, subject_id, network),
     jobs as (
       select (graphile_worker.add_job($2::text, json_build_object('id', j.id), job_key => $3::text || j.id::text)).id
         from (select min(id) as id from ins where network = any($4::text[]) group by network
               union all
               select id from ins where not (network = any($4::text[]))) j)
     select id, kind, subject_id, (select count(*) from jobs) as jobs from ins`,
    [
      JSON.stringify(
        inputs.map((input, ord) => ({
          ord,
          network: input.network,
          kind: input.kind,
          subject_id: input.subjectId,
          to: input.to,
          data: input.data,
          deadline: input.deadline ?? null,
        })),
      ),
      RELAY_REQUEST_JOB.name,
      JOB_KEY_PREFIX,
      pipelined,
    ],
  );
  const inserted = new Map(rows.map((r) => [`${r.kind}:${r.subject_id}`, Number(r.id)]));
  const ids: number[] = [];
  for (const input of inputs)
    ids.push(inserted.get(`${input.kind}:${input.subjectId}`) ?? (await requestRelay(em, input)));
  return ids;
}

/**
 * Wants a finished request's call again: the execution it led to left the chain in a reorganisation
 * (the follower noticed). A request still in progress is the watcher's already; a done one goes back to
 * the queue for a fresh send (re-checked first, so an order executed meanwhile is not sent twice).
 */
export async function reviveRelay(
  em: EntityManager,
  subjects: { kind: RelayKind; subjectId: string }[],
): Promise<void> {
  for (const { kind, subjectId } of subjects) {
    const rows = await em.execute<{ id: string }[]>(
      `update relay_requests set status = 'queued', nonce = null, updated_at = now()
        where kind = ? and subject_id = ? and status = 'done' returning id`,
      [kind, subjectId],
    );
    for (const row of rows) await addJob(em, RELAY_REQUEST_JOB, { id: Number(row.id) });
  }
}

/**
 * Inserts the request and adds its job (as `addJob` would: the job's name, payload and key), or finds
 * the existing one, in one statement: an authorization's round trips are most of its time. A
 * concurrent insert of the same subject that commits while this statement waits is invisible to its
 * snapshot, so the caller asks once more.
 */
async function insertRequest(em: EntityManager, input: RelayRequestInput) {
  const [row] = await em.execute<{ id: string; created: boolean }[]>(
    `with ins as (
       insert into relay_requests (network, kind, subject_id, "to", data, deadline, status, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, 'queued', now(), now())
       on conflict (kind, subject_id) do nothing
       returning id)
     select id, (graphile_worker.add_job(?::text, json_build_object('id', id), job_key => ?::text || id::text)).id is not null as created
       from ins
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
      RELAY_REQUEST_JOB.name,
      JOB_KEY_PREFIX,
      input.kind,
      input.subjectId,
    ],
  );
  return row;
}
