import { builder } from '../../graphql/builder.ts';
import { SessionRef } from './session.graphql.ts';
import { historyOf, type SESSION_CAUSES, type SessionHistory } from './session.history.ts';

/** A session's history on the operators' `DepositSession`: every change, when, and what made it. */

const CauseEnum = builder.enumType('SessionChangeCause', {
  values: {
    merchant_api: {
      description: 'The merchant’s signed API (relaying the player’s choice, or a hosted create).',
    },
    player: { description: 'The player on the hosted payment page.' },
    chain: { description: 'The chain follower: a payment found, confirmed or lost, reverted, never mined.' },
    expiry: { description: 'The session’s time ran out unpaid.' },
    operator: { description: 'An operator (`actor` is the operator token’s id).' },
  } satisfies Record<(typeof SESSION_CAUSES)[number], { description: string }>,
});

const HistoryRef = builder.objectRef<SessionHistory>('SessionHistoryEntry').implement({
  description: 'One change of a session, recorded in the transaction that made it.',
  fields: (t) => ({
    version: t.exposeInt('version', { description: 'The session’s version after the change (0: created).' }),
    kind: t.exposeString('kind', {
      description:
        '`created`, or the transition: `step` (an action of the step machine), `hosted_link`, `payment_found`, `payment_lost`, `completed`, `failed`.',
    }),
    cause: t.field({ type: CauseEnum, resolve: (h) => h.cause }),
    actor: t.exposeString('actor', {
      nullable: true,
      description:
        'The merchant API key id or operator token id that made it; null for the service’s own processes.',
    }),
    fromStep: t.exposeString('fromStep', { nullable: true }),
    toStep: t.exposeString('toStep'),
    fromStatus: t.exposeString('fromStatus', { nullable: true }),
    toStatus: t.exposeString('toStatus'),
    failureReason: t.exposeString('failureReason', { nullable: true }),
    txHash: t.exposeString('txHash', {
      nullable: true,
      description: 'The transaction it is about: the approval or payment reported, the payment found.',
    }),
    at: t.expose('at', { type: 'DateTime' }),
  }),
});

builder.objectField(SessionRef, 'history', (t) =>
  t.field({
    type: [HistoryRef],
    description: 'Every change of the session, oldest first, with its time and what made it.',
    resolve: (s, _, ctx) => historyOf(ctx.em.fork(), s.id),
  }),
);
