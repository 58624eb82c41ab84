import { ChainBlockSchema, ChainCursorSchema, ChainFollowerSchema } from '../../followers/follower.entity.ts';
import type { GatewayModule } from '../module.ts';
import './system.graphql.ts';
import './followers.graphql.ts';
import './jobs.graphql.ts';

/** The service's own state for operators: health, configuration, the chain followers' cursors. */
export const systemModule: GatewayModule = {
  name: 'system',
  entities: [ChainCursorSchema, ChainBlockSchema, ChainFollowerSchema],
};
