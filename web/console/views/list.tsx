import type { ComponentChildren } from 'preact';
import type { Location } from '../router.ts';
import { Empty, Failure, Loading, type Read } from '../ui.tsx';
import { Choice, Filters, Input, MerchantSelect } from './common.tsx';

/** The pieces the console's lists are made of: their states, their tables, the records' filter. */

/** A column heading: its text, or a numeric column (`num`), or one named for screen readers only. */
export type Column = string | { label: string; class?: 'num'; hidden?: boolean };

/** A table named by its caption (for screen readers only, unless `showCaption`), rows as children. */
export function DataTable(props: {
  caption?: string;
  showCaption?: boolean;
  columns: Column[];
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <table class={props.class}>
      {props.caption ? (
        <caption class={props.showCaption ? undefined : 'sr-only'}>{props.caption}</caption>
      ) : null}
      <thead>
        <tr>
          {props.columns.map((c) =>
            typeof c === 'string' ? (
              <th key={c} scope="col">
                {c}
              </th>
            ) : (
              <th key={c.label} scope="col" class={c.class}>
                {c.hidden ? <span class="sr-only">{c.label}</span> : c.label}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  );
}

/**
 * A list in its states: the read's error (with a retry, above what was read before), "Loading
 * <what>…" until it first answers, then the `empty` note or the items as `children` draws them. Items
 * already at hand need no `read`.
 */
export function ListState<T>(props: {
  items: readonly T[] | undefined;
  empty: ComponentChildren;
  children: (items: readonly T[]) => ComponentChildren;
  read?: Read;
  what?: string;
}) {
  const { items, read } = props;
  return (
    <>
      {read?.error ? <Failure error={read.error} retry={read.reload} /> : null}
      {items === undefined && read?.fetching && props.what ? <Loading what={props.what} /> : null}
      {items && items.length === 0 ? <Empty>{props.empty}</Empty> : null}
      {items && items.length > 0 ? props.children(items) : null}
    </>
  );
}

/**
 * The filter of sessions and payouts as the URL holds it (`?merchant=&status=&network=&search=` and
 * `from`, `to`: whole UTC days, `to` included), as the API takes it.
 */
export function recordFilter(loc: Location) {
  const q = (k: string) => loc.query.get(k);
  return {
    merchantId: q('merchant'),
    status: q('status'),
    network: q('network'),
    search: q('search'),
    createdAfter: dayBound(q('from')),
    createdBefore: dayBound(q('to'), true),
  };
}

/** The filter bar of sessions and payouts: `recordFilter`'s fields, the view's statuses and search hint. */
export function RecordFilters(props: { loc: Location; statuses: string[]; search: string }) {
  const q = (k: string) => props.loc.query.get(k);
  return (
    <Filters loc={props.loc}>
      <MerchantSelect value={q('merchant')} />
      <Choice name="status" label="Status" value={q('status')} options={props.statuses} />
      <Input name="network" label="Network" value={q('network')} placeholder="eth" />
      <Input name="from" label="From (UTC day)" type="date" value={q('from')} />
      <Input name="to" label="To (UTC day)" type="date" value={q('to')} />
      <Input name="search" label="Search" value={q('search')} placeholder={props.search} />
    </Filters>
  );
}

/** A `Date` query value (`YYYY-MM-DD`, a UTC day) as the start of that day, or its end. */
function dayBound(day: string | null, end = false): string | null {
  if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const start = Date.parse(`${day}T00:00:00Z`);
  return new Date(end ? start + 86_400_000 : start).toISOString();
}
