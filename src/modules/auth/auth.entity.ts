import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../db/timestamps.ts';
import type { OperatorScope } from '../../lib/operator-scopes.ts';
import { Merchant } from '../merchant/merchant.entity.ts';

/**
 * A merchant API key. The id travels as `X-Api-Key`; the secret is shown once at creation and kept
 * only encrypted (HMAC verification needs the secret itself, so it cannot be hashed).
 */
export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().length(40).primary(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade').index(),
    label: p.string().length(200).nullable(),
    secretSealed: p.text(),
    createdAt: createdAt(),
    revokedAt: p.datetime().nullable(),
  },
});
export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);

/**
 * An operator bearer token for `/graphql`; only its SHA-256 is stored. A change of `revoked_at` or
 * `expires_at` is announced on `operator_token_changed` by a trigger (even one made by hand in SQL).
 */
export const OperatorTokenSchema = defineEntity({
  name: 'OperatorToken',
  tableName: 'operator_tokens',
  properties: {
    id: p.string().length(40).primary(),
    name: p.string().length(200),
    tokenHash: p.string().length(64).unique(),
    /** `read`, or `read` and `admin` (scopes.ts). */
    scopes: p.array<OperatorScope>(),
    createdAt: createdAt(),
    /** Refused from this time on; null: never expires. */
    expiresAt: p.datetime().nullable(),
    /** Last request made with it, to the minute (it is written at most once a minute). */
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export class OperatorToken extends OperatorTokenSchema.class {}
OperatorTokenSchema.setClass(OperatorToken);

/**
 * A consumed request nonce. The primary key makes consumption atomic: of any number of concurrent
 * requests with one nonce, exactly one insert succeeds. Rows older than the replay window are pruned.
 */
export const RequestNonceSchema = defineEntity({
  name: 'RequestNonce',
  tableName: 'request_nonces',
  properties: {
    keyId: p.string().length(40).primary(),
    nonce: p.string().length(128).primary(),
    createdAt: p.datetime().index(),
  },
});
export class RequestNonce extends RequestNonceSchema.class {}
RequestNonceSchema.setClass(RequestNonce);

/** How an audited operator mutation ended. `pending`: running, or the process stopped before it could say. */
export const AUDIT_OUTCOMES = ['pending', 'ok', 'failed', 'refused'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/**
 * One operator mutation: who (the token, and its name then; no token: the CLI), what (the root field and its arguments,
 * secrets redacted), when, from where, and how it ended. Written before the mutation runs, so none
 * runs unrecorded; its outcome is filled in after.
 */
export const OperatorAuditSchema = defineEntity({
  name: 'OperatorAudit',
  tableName: 'operator_audit',
  indexes: [{ properties: ['createdAt', 'id'] }, { properties: ['operatorToken', 'createdAt'] }],
  properties: {
    id: p.string().length(40).primary(),
    operatorToken: () => p.manyToOne(OperatorToken).nullable(),
    operatorName: p.string().length(200),
    operation: p.string().length(200),
    arguments: p.json<Record<string, unknown>>(),
    outcome: p.text().$type<AuditOutcome>(),
    errorCode: p.string().length(40).nullable(),
    clientIp: p.string().length(64).nullable(),
    createdAt: createdAt(),
    finishedAt: p.datetime().nullable(),
  },
});
export class OperatorAudit extends OperatorAuditSchema.class {}
OperatorAuditSchema.setClass(OperatorAudit);
