import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { operatorOf, requireScope } from '../../graphql/guards.ts';
import { operatorListing, pageRef } from '../../graphql/pagination.ts';
import { OPERATOR_SCOPES } from '../../lib/operator-scopes.ts';
import { AUDIT_OUTCOMES, type OperatorAudit, type OperatorToken } from './auth.entity.ts';
import { type IssuedOperatorToken, tokenActive } from './operator.service.ts';

/** Operator tokens (who may use `/graphql`, and for what) and the audit log of their mutations. */

const ScopeEnum = builder.enumType('OperatorScope', {
  description:
    '`read`: queries and subscriptions. `admin`: besides reading, every mutation and operator-token management.',
  values: OPERATOR_SCOPES,
});

const OutcomeEnum = builder.enumType('OperatorAuditOutcome', {
  description:
    '`ok`; `failed` (see `errorCode`); `refused` (the token may not mutate); `pending`: running, or the process stopped before it could record the end.',
  values: AUDIT_OUTCOMES,
});

const OperatorTokenRef = builder.objectRef<OperatorToken>('OperatorToken').implement({
  description: 'An operator bearer token (its value is shown once, at creation, and never again).',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    scopes: t.field({ type: [ScopeEnum], resolve: (o) => o.scopes }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Last request made with it, to the minute.',
    }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    active: t.boolean({ description: 'Neither revoked nor expired.', resolve: (o) => tokenActive(o) }),
  }),
});

const IssuedRef = builder.objectRef<IssuedOperatorToken>('IssuedOperatorToken').implement({
  description: 'A new operator token. `token` is the bearer value, shown here once and never again.',
  fields: (t) => ({
    id: t.exposeID('id'),
    token: t.exposeString('token'),
    name: t.exposeString('name'),
    scopes: t.field({ type: [ScopeEnum], resolve: (o) => o.scopes }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
  }),
});

const AuditRef = builder.objectRef<OperatorAudit>('OperatorAuditEntry').implement({
  description: 'One mutation made with an operator token, or one CLI command that changes something.',
  fields: (t) => ({
    id: t.exposeID('id'),
    operatorId: t.id({
      nullable: true,
      description: 'The operator token; null for the CLI (`operatorName` says who ran it, and where).',
      resolve: (a) => a.operatorToken?.id ?? null,
    }),
    operatorName: t.exposeString('operatorName'),
    operation: t.exposeString('operation', { description: 'The mutation field, e.g. `revokeApiKey`.' }),
    arguments: t.field({
      type: 'JSON',
      description: 'Its arguments; secrets, private keys, passwords and tokens are `[redacted]`.',
      resolve: (a) => a.arguments,
    }),
    outcome: t.field({ type: OutcomeEnum, resolve: (a) => a.outcome }),
    errorCode: t.exposeString('errorCode', { nullable: true }),
    clientIp: t.exposeString('clientIp', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

const AuditPageRef = pageRef('OperatorAuditPage', AuditRef);

builder.queryFields((t) => ({
  viewer: t.field({
    type: OperatorTokenRef,
    description: 'The operator token making this request: its name and scopes (what a console may offer).',
    resolve: (_, __, ctx) => ctx.services.operators.get(ctx.em, operatorOf(ctx).operatorId),
  }),
  operatorTokens: t.field({
    type: [OperatorTokenRef],
    description: 'Every operator token, revoked and expired ones too, newest first (admin).',
    resolve: (_, __, ctx) => {
      requireScope(ctx, 'admin');
      return ctx.services.operators.list(ctx.em);
    },
  }),
  operatorAuditLog: operatorListing(t, {
    type: AuditPageRef,
    description: 'Mutations made with operator tokens or the CLI, newest first.',
    args: { operatorId: t.arg.id(), operation: t.arg.string() },
    max: 500,
    byDefault: 50,
    list: (ctx, args, first, after) =>
      ctx.services.operators.audit.list(
        ctx.em,
        { operatorId: args.operatorId ? String(args.operatorId) : null, operation: args.operation },
        first,
        after,
      ),
  }),
}));

builder.mutationFields((t) => ({
  createOperatorToken: t.field({
    type: IssuedRef,
    description:
      'Issues an operator token: read-only unless `scopes` includes `admin`; valid until `expiresAt` when given.',
    args: {
      name: t.arg.string({ required: true, validate: z.string().min(1).max(200) }),
      scopes: t.arg({ type: [ScopeEnum], defaultValue: ['read'] }),
      expiresAt: t.arg({ type: 'DateTime' }),
    },
    resolve: (_, args, ctx) => {
      requireScope(ctx, 'admin');
      return ctx.services.operators.createToken(ctx.em, {
        name: args.name,
        scopes: args.scopes ?? ['read'],
        expiresAt: args.expiresAt,
      });
    },
  }),
  revokeOperatorToken: t.field({
    type: OperatorTokenRef,
    description:
      'Revokes a token now: its next request is refused and its open WebSockets are closed (4403).',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => {
      requireScope(ctx, 'admin');
      return ctx.services.operators.revokeToken(ctx.em, String(args.id));
    },
  }),
}));
