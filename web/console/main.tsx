import { Provider, useQuery } from '@urql/preact';
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type ConsoleClient, checkToken, createConsoleClient, tokenStore } from './client.ts';
import { graphql } from './graphql.ts';
import { BASE, Link, LocationContext, navigate, useLocation } from './router.ts';
import { type Access, AccessContext } from './ui.tsx';
import { routeOf } from './views/index.tsx';

/**
 * The operator console: a sign-in form, then the views, each at its own URL. Everything it shows or
 * changes goes through `/graphql`.
 */

const NAV: [string, string][] = [
  ['Overview', BASE],
  ['Merchants', `${BASE}/merchants`],
  ['Sessions', `${BASE}/sessions`],
  ['Payouts', `${BASE}/payouts`],
  ['Deposits', `${BASE}/deposits`],
  ['Webhooks', `${BASE}/webhooks`],
  ['Reports', `${BASE}/reports`],
  ['System', `${BASE}/system`],
];

const ViewerQuery = graphql(`
  query Viewer {
    viewer {
      name
      scopes
    }
  }
`);

/** What the token may do, from its scopes as the API reports them: only `admin` changes anything. */
function useViewerAccess(): { access: Access; who: string | null } {
  const [{ data, error }] = useQuery({ query: ViewerQuery });
  if (!data)
    return {
      access: {
        canWrite: false,
        reason: error ? 'The token’s scopes could not be read.' : 'Reading the token’s scopes…',
      },
      who: null,
    };
  const { name, scopes } = data.viewer;
  return {
    access: scopes.includes('admin')
      ? { canWrite: true }
      : { canWrite: false, reason: `The token “${name}” may only read (scopes: ${scopes.join(', ')}).` },
    who: `${name} (${scopes.join(', ')})`,
  };
}

function SignIn({ reason, onSignedIn }: { reason: string | null; onSignedIn: (token: string) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="signin">
      <h1>Operator console</h1>
      {reason ? (
        <p class="failure" role="alert">
          {reason}
        </p>
      ) : null}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const token = String(new FormData(e.currentTarget).get('token') ?? '').trim();
          if (!token) return setError('Paste an operator token to sign in.');
          setBusy(true);
          try {
            const refused = await checkToken(token);
            if (refused) setError(`This token does not work: ${refused}.`);
            else onSignedIn(token);
          } catch (err) {
            setError(
              `The API could not be reached (${(err as Error).message}). Check the service is running.`,
            );
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="token">Operator token</label>
        <input id="token" name="token" type="password" autoComplete="off" required />
        <p class="hint">
          Issued with <code>npm run cli -- operator:token --name NAME</code>; the development stack's is in{' '}
          <code>.data/devstack.json</code> (<code>operator_token</code>). It is kept in this tab only.
        </p>
        {error ? (
          <p class="failure" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

function Shell({ session, onSignOut }: { session: ConsoleClient; onSignOut: () => void }) {
  return (
    <Provider value={session.client}>
      <Views onSignOut={onSignOut} />
    </Provider>
  );
}

function Views({ onSignOut }: { onSignOut: () => void }) {
  const loc = useLocation();
  const { access, who } = useViewerAccess();
  const { title, view } = routeOf(loc);
  useEffect(() => {
    document.title = `${title} · Operator console`;
  }, [title]);
  const section =
    NAV.slice(1).find(([, href]) => loc.path.startsWith(href))?.[1] ?? (loc.path === BASE ? BASE : '');
  const batchSection = loc.path.startsWith(`${BASE}/batches`) ? `${BASE}/payouts` : section;
  return (
    <AccessContext.Provider value={access}>
      <LocationContext.Provider value={loc}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <span class="brand">Operator console</span>
          <nav aria-label="Views">
            {NAV.map(([label, href]) => (
              <Link key={href} href={href} aria-current={batchSection === href ? 'page' : undefined}>
                {label}
              </Link>
            ))}
          </nav>
          {who ? (
            <span class="viewer" title={access.canWrite ? 'This token may read and change.' : access.reason}>
              Signed in as <strong>{who}</strong>
              {access.canWrite ? null : <span class="readonly"> · read only</span>}
            </span>
          ) : null}
          <button type="button" class="signout" onClick={onSignOut}>
            Sign out
          </button>
        </header>
        <main id="main" tabIndex={-1}>
          {view}
        </main>
      </LocationContext.Provider>
    </AccessContext.Provider>
  );
}

function Console() {
  const [token, setToken] = useState<string | null>(tokenStore.get);
  const [reason, setReason] = useState<string | null>(null);
  const session = useMemo(
    () =>
      token
        ? createConsoleClient(token, (why) => {
            tokenStore.clear();
            setReason(`Signed out: the token stopped working (${why}). Sign in with a valid operator token.`);
            setToken(null);
          })
        : null,
    [token],
  );
  useEffect(() => () => session?.dispose(), [session]);
  if (!token || !session)
    return (
      <SignIn
        reason={reason}
        onSignedIn={(t) => {
          tokenStore.set(t);
          setReason(null);
          setToken(t);
          if (!location.pathname.startsWith(BASE)) navigate(BASE, true);
        }}
      />
    );
  return (
    <Shell
      session={session}
      onSignOut={() => {
        tokenStore.clear();
        setReason('Signed out. The token was forgotten by this tab.');
        setToken(null);
      }}
    />
  );
}

const root = document.getElementById('console')!;
// The boot message goes; the console renders in its place.
root.textContent = '';
render(<Console />, root);
