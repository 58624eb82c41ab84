import type { CombinedError } from '@urql/core';
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useState } from 'preact/hooks';

/**
 * The console's shared pieces: amounts exactly as the API gives them, times in the browser's zone
 * with UTC on hover, copyable ids, and loading, empty and error states that say what to do.
 */

/** What the signed-in token may do: from its scopes (`viewer`), `admin` alone may change things. */
export interface Access {
  canWrite: boolean;
  /** Why changes are disabled, shown next to disabled controls. */
  reason?: string;
}
export const AccessContext = createContext<Access>({ canWrite: true });
export const useAccess = () => useContext(AccessContext);

/** A decimal string with its token: never parsed into a float. */
export function Amount({ value, token }: { value: string | null | undefined; token?: string | null }) {
  if (value === null || value === undefined) return <span class="muted">—</span>;
  return (
    <span class="amount">
      {value}
      {token ? <span class="token"> {token}</span> : null}
    </span>
  );
}

const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A time in the browser's zone; its UTC form on hover. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={`${date.toISOString().replace('T', ' ').slice(0, 19)} UTC`}>
      {local.format(date)}
    </time>
  );
}

/** An id (or hash, or address) with a button that copies it. */
export function Id({ value, short }: { value: string | null | undefined; short?: boolean }) {
  const [copied, setCopied] = useState(false);
  if (!value) return <span class="muted">—</span>;
  const shown = short && value.length > 18 ? `${value.slice(0, 10)}…${value.slice(-6)}` : value;
  return (
    <span class="id">
      <code title={value}>{shown}</code>
      <button
        type="button"
        class="copy"
        aria-label={`Copy ${value}`}
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          );
          setTimeout(() => setCopied(false), 1500);
        }}
      >
        {copied ? 'copied' : 'copy'}
      </button>
    </span>
  );
}

export function Status({ value }: { value: string | null | undefined }) {
  return <span class={`status status-${value ?? 'none'}`}>{value ?? '—'}</span>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** A read's state as `useRead` gives it: enough to show its error, with a retry, or that it loads. */
export interface Read {
  error?: CombinedError;
  fetching: boolean;
  reload: () => void;
}

/** A view whose read has not answered: its error with a retry, or that it loads (else nothing). */
export function Unanswered({ read, what }: { read: Read; what: string }) {
  if (read.error) return <Failure error={read.error} retry={read.reload} />;
  return read.fetching ? <Loading what={what} /> : null;
}

/** An error from the API, with what to do about it. */
export function Failure({ error, retry }: { error: CombinedError | Error | string; retry?: () => void }) {
  const message = typeof error === 'string' ? error : describe(error);
  return (
    <div class="failure" role="alert">
      <p>{message}</p>
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** The API's own message (with its code), or what a network failure means. */
export function describe(error: CombinedError | Error): string {
  const e = error as CombinedError;
  if (e.graphQLErrors?.length) {
    const first = e.graphQLErrors[0]!;
    const code = first.extensions?.code ? ` (${String(first.extensions.code)})` : '';
    return `${first.message}${code}`;
  }
  if (e.networkError)
    return `The API could not be reached: ${e.networkError.message}. Check the service is running.`;
  return error.message;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A definition list of label and value pairs. */
export function Facts({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value ?? <span class="muted">—</span>}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A button for a change: disabled (with the reason) for a token that may only read. */
export function ChangeButton(props: {
  children: ComponentChildren;
  onClick?: () => void;
  type?: 'button' | 'submit';
  busy?: boolean;
  class?: string;
}) {
  const access = useAccess();
  return (
    <button
      type={props.type ?? 'button'}
      class={props.class}
      disabled={!access.canWrite || props.busy}
      title={access.canWrite ? undefined : access.reason}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}

/** The outcome of a change: its error, or a short confirmation. */
export function Outcome({ error, done }: { error?: CombinedError | undefined; done?: string | null }) {
  if (error) return <Failure error={error} />;
  if (done)
    return (
      <p class="done" role="status">
        {done}
      </p>
    );
  return null;
}
