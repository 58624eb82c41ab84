import { AppError } from '../errors.ts';
import type { OperatorScope } from '../lib/operator-scopes.ts';
import type { Context, OperatorActor } from './context.ts';

/** Operator-only fields call this first. */
export function requireOperator(ctx: Context): void {
  operatorOf(ctx);
}

/** The calling operator; anyone else is refused as `unauthorized`. */
export function operatorOf(ctx: Context): OperatorActor {
  if (ctx.actor.kind !== 'operator') throw new AppError('unauthorized', 'operator token required');
  return ctx.actor;
}

/**
 * Operator fields that need more than `read` call this (mutations need `admin` already, checked for
 * all of them in one place: src/graphql/operator-mutations.ts).
 */
export function requireScope(ctx: Context, scope: OperatorScope): void {
  if (!operatorOf(ctx).scopes.includes(scope)) throw lacksScope(scope);
}

/** The refusal of an operator token without `scope`. */
export const lacksScope = (scope: OperatorScope) =>
  new AppError('forbidden', `this operator token lacks the ${scope} scope`);

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
