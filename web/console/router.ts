import type { ComponentChildren } from 'preact';
import { createContext, h } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';

/**
 * Routing by the History API: every view has its own URL under `/console`, filters live in the query
 * string (a pasted link opens the same view), and the back button goes back.
 */

export const BASE = '/console';

export interface Location {
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();
const read = (): Location => ({
  path: location.pathname.replace(/\/+$/, '') || BASE,
  query: new URLSearchParams(location.search),
});
addEventListener('popstate', () => {
  for (const l of listeners) l();
});

/** Goes to `to` (a path under /console, with an optional query); `replace` keeps one history entry. */
export function navigate(to: string, replace = false) {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const l of listeners) l();
  if (!replace) scrollTo(0, 0);
}

/** The current location; re-renders on every navigation. */
export function useLocation(): Location {
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const update = () => setLoc(read());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return loc;
}

/** The current query with `changes` applied (empty values removed), as a URL of the current path. */
export function withQuery(loc: Location, changes: Record<string, string | null | undefined>): string {
  const q = new URLSearchParams(loc.query);
  for (const [k, v] of Object.entries(changes)) {
    if (v) q.set(k, v);
    else q.delete(k);
  }
  const s = q.toString();
  return `${loc.path}${s ? `?${s}` : ''}`;
}

export const LocationContext = createContext<Location>(read());
export const useLoc = () => useContext(LocationContext);

/** A link that navigates in place; modified clicks (new tab) are left to the browser. */
export function Link(props: {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
}) {
  const { href, children, ...rest } = props;
  return h(
    'a',
    {
      ...rest,
      href,
      onClick: (e: MouseEvent) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      },
    },
    children,
  );
}
