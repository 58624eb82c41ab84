import { topic } from '../../db/topic.ts';

/**
 * Published when a merchant's keys or allowlist change, so every API process drops its cached
 * credentials of that merchant at once (a revoked key stops working everywhere, not after a cache period).
 */
export const credentialsChanged = topic('credentials_changed', ['merchantId']);
