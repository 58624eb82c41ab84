import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../db/timestamps.ts';
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

/** An operator bearer token for `/graphql`; only its SHA-256 is stored. */
export const OperatorTokenSchema = defineEntity({
  name: 'OperatorToken',
  tableName: 'operator_tokens',
  properties: {
    id: p.string().length(40).primary(),
    name: p.string().length(200),
    tokenHash: p.string().length(64).unique(),
    createdAt: createdAt(),
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
