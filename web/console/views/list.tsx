import type { ComponentChildren } from 'preact';

/** The pieces the console's tables are made of. */

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
