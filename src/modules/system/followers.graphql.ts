import { followerStatus, type StreamStatus } from '../../followers/store.ts';
import { builder } from '../../graphql/builder.ts';
import { requireOperator } from '../../graphql/guards.ts';

/** Operators: how far each consumer of each network's chain follower is behind the head. */

const StreamStatusRef = builder.objectRef<StreamStatus>('FollowerStream').implement({
  description: 'One consumer (stream) of a network’s chain follower and how far it is behind the head.',
  fields: (t) => ({
    network: t.exposeString('network'),
    stream: t.exposeString('stream', {
      description: 'The consumer: `sessions`, `payouts`, `batches` or `relays`.',
    }),
    owner: t.exposeString('owner', {
      nullable: true,
      description: 'The worker process that follows the network.',
    }),
    since: t.expose('since', {
      type: 'DateTime',
      nullable: true,
      description: 'When that process took it over.',
    }),
    headBlock: t.exposeInt('headBlock', { nullable: true }),
    finalizedBlock: t.exposeInt('finalizedBlock', {
      nullable: true,
      description:
        'The block the service treats as final: never newer than the node’s `finalized` block nor `finalityDepth` blocks behind the head.',
    }),
    nodeFinalizedBlock: t.exposeInt('nodeFinalizedBlock', {
      nullable: true,
      description: 'The highest `finalized` block the node reported (null: it serves none).',
    }),
    nodeProblem: t.exposeString('nodeProblem', {
      nullable: true,
      description:
        'Why the node is not trusted now (its `finalized` block went back, or its head fell below the service’s final block). Nothing settles on the network until it is consistent again.',
    }),
    nodeProblemSince: t.expose('nodeProblemSince', {
      type: 'DateTime',
      nullable: true,
      description: 'Since when the node has been inconsistent.',
    }),
    cursorBlock: t.exposeInt('cursorBlock', { description: 'The last block the consumer has processed.' }),
    lagBlocks: t.exposeInt('lagBlocks', { nullable: true }),
    lagSeconds: t.exposeInt('lagSeconds', {
      nullable: true,
      description: 'Head minus cursor in the chain’s own time.',
    }),
    tickedAt: t.expose('tickedAt', {
      type: 'DateTime',
      nullable: true,
      description:
        'The follower’s last recorded tick: every tick that found the chain moved, and once a minute while it did not.',
    }),
  }),
});

builder.queryFields((t) => ({
  chainFollowers: t.field({
    type: [StreamStatusRef],
    description: 'Every followed network’s consumers, with the process following it and its lag.',
    resolve: (_, __, ctx) => {
      requireOperator(ctx);
      return followerStatus(ctx.em);
    },
  }),
}));
