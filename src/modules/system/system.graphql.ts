import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';

builder.queryFields((t) => ({
  version: t.string({ description: 'Version of the service API.', resolve: () => '0.2.0' }),
}));

builder.subscriptionFields((t) => ({
  heartbeat: t.field({
    type: 'DateTime',
    description: 'Server time every `intervalSeconds`: a liveness probe for dashboard WebSocket connections.',
    args: { intervalSeconds: t.arg.int({ validate: z.number().int().min(1).max(3600) }) },
    subscribe: async function* (_, args, _ctx, info) {
      const interval = (args.intervalSeconds ?? 15) * 1000;
      while (true) {
        yield new Date();
        await sleep(interval);
        void info;
      }
    },
    resolve: (date) => date as Date,
  }),
}));
