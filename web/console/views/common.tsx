import { useQuery } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { graphql } from '../graphql.ts';
import { BASE, Link, type Location, navigate, withQuery } from '../router.ts';

/**
 * Shared pieces of the views: the merchant picker and the filter forms kept in the URL, paging, and
 * the heading of one record's view.
 */

const MerchantNames = graphql(`
  query MerchantNames {
    merchants {
      id
      name
      displayName
    }
  }
`);

/** A select of every merchant (or "All merchants"). */
export function MerchantSelect({
  name = 'merchant',
  value,
  label = 'Merchant',
  required,
}: {
  name?: string;
  value: string | null;
  label?: string;
  required?: boolean;
}) {
  const [{ data }] = useQuery({ query: MerchantNames });
  const id = `f-${name}`;
  return (
    <span class="field">
      <label for={id}>{label}</label>
      <select id={id} name={name} value={value ?? ''} required={required}>
        <option value="">{required ? 'Choose a merchant' : 'All merchants'}</option>
        {data?.merchants.map((m) => (
          <option key={m.id} value={m.id}>
            {m.displayName ?? m.name}
          </option>
        ))}
      </select>
    </span>
  );
}

/** A labelled input. */
export function Input(props: {
  name: string;
  label: string;
  value?: string | null;
  type?: 'text' | 'date' | 'url';
  placeholder?: string;
  required?: boolean;
}) {
  const id = `f-${props.name}`;
  return (
    <span class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={(props.type ?? 'text') as 'text'}
        value={props.value ?? ''}
        placeholder={props.placeholder}
        required={props.required}
      />
    </span>
  );
}

/** A labelled select of fixed options (the first, empty, is "Any"). */
export function Choice(props: { name: string; label: string; value: string | null; options: string[] }) {
  const id = `f-${props.name}`;
  return (
    <span class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} value={props.value ?? ''}>
        <option value="">Any</option>
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </span>
  );
}

/** A filter form whose fields become the URL's query (a new search starts at the first page). */
export function Filters({ loc, children }: { loc: Location; children: ComponentChildren }) {
  return (
    <form
      class="filters"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const changes: Record<string, string | null> = { after: null };
        for (const [k, v] of data.entries()) changes[k] = String(v).trim() || null;
        navigate(withQuery(loc, changes));
      }}
    >
      {children}
      <button type="submit">Apply</button>
    </form>
  );
}

/** Next-page link of a keyset-paginated list. */
export function Pager({
  loc,
  page,
}: {
  loc: Location;
  page?: { hasNextPage: boolean; endCursor: string | null };
}) {
  if (!page) return null;
  return (
    <p class="pager">
      {loc.query.get('after') ? (
        <button type="button" onClick={() => navigate(withQuery(loc, { after: null }))}>
          Newest
        </button>
      ) : null}
      {page.hasNextPage && page.endCursor ? (
        <button type="button" onClick={() => navigate(withQuery(loc, { after: page.endCursor }))}>
          Older
        </button>
      ) : null}
    </p>
  );
}

/** A record's heading (its kind and id, or its name) under a link back to its list, e.g. "Payouts /". */
export function RecordHeading(props: { list: string; listName: string; children: ComponentChildren }) {
  return (
    <>
      <p class="crumbs">
        <Link href={`${BASE}/${props.list}`}>{props.listName}</Link> /
      </p>
      <h1>{props.children}</h1>
    </>
  );
}
