import type { ComponentChildren } from 'preact';
import { Empty, Failure, Loading, type Read } from '../ui.tsx';

/** The pieces the console's lists are made of: their states, and their tables. */

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
