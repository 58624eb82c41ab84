/**
 * What an operator token may do. `read`: queries and subscriptions. `admin`: besides reading, every
 * mutation (merchants, keys, wallets, payouts…) and the management of operator tokens. An admin token
 * always reads too, so its stored scopes are `read` and `admin`.
 */
export const OPERATOR_SCOPES = ['read', 'admin'] as const;

export type OperatorScope = (typeof OPERATOR_SCOPES)[number];

/** The scopes as stored: known ones only, `read` implied by `admin`, in the order of OPERATOR_SCOPES. */
export function normalizeScopes(scopes: readonly string[]): OperatorScope[] {
  const wanted = new Set(scopes);
  if (wanted.has('admin')) wanted.add('read');
  return OPERATOR_SCOPES.filter((scope) => wanted.has(scope));
}
