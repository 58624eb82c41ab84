import { AppError } from '../errors.ts';
import type { Context } from './context.ts';

/** Operator-only fields call this first. */
export function requireOperator(ctx: Context): void {
  if (ctx.actor.kind !== 'operator') throw new AppError('unauthorized', 'operator token required');
}

/**
 * The merchant an operation acts for: the signed merchant itself (REST), or the merchant an operator
 * names (GraphQL). A merchant can never name another merchant.
 */
export function merchantScope(ctx: Context, merchantId?: string | null): string {
  if (ctx.actor.kind === 'merchant') {
    if (merchantId && merchantId !== ctx.actor.merchantId)
      throw new AppError('not_found', 'merchant not found');
    return ctx.actor.merchantId;
  }
  if (ctx.actor.kind === 'operator') {
    if (!merchantId) throw new AppError('validation', 'merchant_id: required for operators');
    return merchantId;
  }
  throw new AppError('unauthorized', 'authentication required');
}
