import { builder } from './builder.ts';
// Each module registers its types and fields on the builder when imported.
import '../modules/merchant/merchant.graphql.ts';
import '../modules/system/system.graphql.ts';
import '../modules/system/followers.graphql.ts';
import '../modules/webhook/webhook.graphql.ts';
import '../modules/session/session.graphql.ts';
import '../modules/hosted/hosted.graphql.ts';
import '../modules/payout/payout.graphql.ts';
import '../modules/batch/batch.graphql.ts';
import '../modules/approval/approval.graphql.ts';
import '../modules/balance/balance.graphql.ts';
import '../modules/deposit/deposit.graphql.ts';
import '../relay/relay.graphql.ts';

/** The assembled schema of every module. */
export const schema = builder.toSchema({ sortSchema: true });
