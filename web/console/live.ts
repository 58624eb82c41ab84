import type { AnyVariables, TypedDocumentNode } from '@urql/core';
import { type UseQueryArgs, useQuery, useSubscription } from '@urql/preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * Keeps a view live: each event of `subscription` re-reads the view's query from the network (a few
 * events close together cause one read). The list then shows exactly what the API holds, filters and
 * all, within a moment of the change.
 */
export function useLive<Data, Vars extends AnyVariables>(
  subscription: TypedDocumentNode<Data, Vars>,
  variables: Vars,
  refresh: () => void,
) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(refresh);
  latest.current = refresh;
  const [result] = useSubscription<Data, Data, Vars>({ query: subscription, variables });
  useEffect(() => {
    if (!result.data) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => latest.current(), 50);
  }, [result.data]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return result;
}

/**
 * A view's query with `reload`: read again from the network, not the cache (after a change the view
 * made, on "Try again", on a live event).
 */
export function useRead<Data, Vars extends AnyVariables>(args: UseQueryArgs<Vars, Data>) {
  const [result, refetch] = useQuery<Data, Vars>(args);
  return { ...result, reload: () => refetch({ requestPolicy: 'network-only' }) };
}

/** The query-string value `key` of a form, trimmed; empty is null. */
export function field(form: HTMLFormElement, key: string): string | null {
  const value = String(new FormData(form).get(key) ?? '').trim();
  return value || null;
}
