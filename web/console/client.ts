import { Client, cacheExchange, fetchExchange, mapExchange, subscriptionExchange } from '@urql/core';
import { createClient as createWsClient } from 'graphql-ws';

/**
 * The console's GraphQL client: urql over `/graphql` with the operator token as the bearer header,
 * and subscriptions over graphql-ws with the same token as the connection parameter. A token the API
 * refuses (revoked, expired) ends the session: `onRefused` returns the console to the sign-in form.
 */

const TOKEN_KEY = 'console.operatorToken';

/** The token of this tab; `sessionStorage` only, never a cookie or `localStorage`. */
export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** Error codes that mean the token itself no longer works. */
const REFUSED = new Set(['unauthorized']);

export interface ConsoleClient {
  client: Client;
  dispose(): void;
}

export function createConsoleClient(token: string, onRefused: (reason: string) => void): ConsoleClient {
  const authorization = `Bearer ${token}`;
  const ws = createWsClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: { authorization },
    lazy: true,
    retryAttempts: 20,
    shouldRetry: () => true,
  });
  const client = new Client({
    url: '/graphql',
    requestPolicy: 'cache-and-network',
    fetchOptions: () => ({ headers: { authorization } }),
    exchanges: [
      mapExchange({
        onError(error) {
          const refused = error.graphQLErrors.find((e) => REFUSED.has(String(e.extensions?.code)));
          if (refused) onRefused(refused.message);
        },
      }),
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query ?? '' };
          return {
            subscribe(sink) {
              const unsubscribe = ws.subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });
  return { client, dispose: () => void ws.dispose() };
}

/** Checks a token before keeping it: the API's own refusal message when it does not work. */
export async function checkToken(token: string): Promise<string | null> {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: 'query SignInCheck { chainFollowers { network } }' }),
  });
  const body = (await res.json().catch(() => ({}))) as { errors?: { message: string }[] };
  return body.errors?.[0]?.message ?? (res.ok ? null : `the API answered ${res.status}`);
}
