import type { AnyVariables, TypedDocumentNode } from '@urql/core';
import { useSubscription } from '@urql/preact';
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

/** The query-string value `key` of a form, trimmed; empty is null. */
export function field(form: HTMLFormElement, key: string): string | null {
  const value = String(new FormData(form).get(key) ?? '').trim();
  return value || null;
}
