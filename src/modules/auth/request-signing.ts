/**
 * The signing rules of D1, shared by the verifier, the README examples, the CLI and the tests. They
 * live in the SDK (one implementation for the service and merchants' clients) and are re-exported here.
 */
export {
  canonicalRequest,
  EMPTY_BODY_SHA256,
  MAX_SKEW_SECONDS,
  NONCE_PATTERN,
  NONCE_WINDOW_SECONDS,
  type SignatureInput,
  signedHeaders,
  signRequest,
} from '../../../sdk/request-signing.ts';
