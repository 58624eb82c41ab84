import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Just enough Markdown for the docs tests: the pages of the repository, their headings as GitHub
 * anchors, their links and their fenced code blocks. Lines inside fences are never headings or links.
 */

export const root = path.resolve(import.meta.dirname, '../..');

/** Every Markdown page of the repository (README.md, docs/, sdk/), as paths relative to the root. */
export function markdownPages(dir = root): string[] {
  const skip = new Set(['node_modules', '.git', '.data']);
  const pages: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) pages.push(...markdownPages(full));
    else if (entry.name.endsWith('.md')) pages.push(path.relative(root, full));
  }
  return pages.sort();
}

/** A fenced code block: its language, its text, the line it starts on and the HTML comment before it. */
export interface CodeBlock {
  lang: string;
  code: string;
  line: number;
  /** The text of an `<!-- … -->` comment on the last non-blank line before the fence, if any. */
  comment?: string;
}

interface Parsed {
  /** Lines outside fences, with their 1-based numbers. */
  prose: Array<{ text: string; line: number }>;
  blocks: CodeBlock[];
}

function parse(text: string): Parsed {
  const lines = text.split('\n');
  const prose: Parsed['prose'] = [];
  const blocks: CodeBlock[] = [];
  let open: { fence: string; lang: string; line: number; body: string[]; comment?: string } | undefined;
  lines.forEach((line, i) => {
    if (open) {
      if (line.trimStart().startsWith(open.fence) && line.trim() === open.fence) {
        blocks.push({ lang: open.lang, code: open.body.join('\n'), line: open.line, comment: open.comment });
        open = undefined;
      } else open.body.push(line);
      return;
    }
    const fence = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(line);
    if (fence?.[1]) {
      const before = prose.filter((p) => p.text.trim() !== '').at(-1);
      const comment =
        before && before.line >= i - 2 ? /^<!--\s*(.*?)\s*-->$/.exec(before.text.trim())?.[1] : undefined;
      open = { fence: fence[1], lang: fence[2] ?? '', line: i + 1, body: [], comment };
      return;
    }
    prose.push({ text: line, line: i + 1 });
  });
  return { prose, blocks };
}

/** The fenced code blocks of a page. */
export function codeBlocks(text: string): CodeBlock[] {
  return parse(text).blocks;
}

/**
 * GitHub's anchor of a heading: the rendered text lower-cased, everything but letters, digits, spaces,
 * `-` and `_` dropped, spaces turned into `-`; a repeated anchor gets `-1`, `-2`, … in page order.
 */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const { text: line } of parse(text).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const rendered = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link shows its text
      .replace(/<[^>]+>/g, ''); // tags render as nothing
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** A link of a page: its target as written and the line it is on. Inline code is not searched. */
export interface Link {
  target: string;
  line: number;
}

/** Inline links `[text](target)` (also images) and reference definitions `[label]: target`. */
export function links(text: string): Link[] {
  const result: Link[] = [];
  for (const { text: raw, line } of parse(text).prose) {
    const prose = raw.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      if (m[1]) result.push({ target: m[1], line });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(prose);
    if (definition?.[1]) result.push({ target: definition[1], line });
  }
  return result;
}

/** The text of a page, by its path relative to the root. */
export function readPage(page: string): string {
  return readFileSync(path.join(root, page), 'utf8');
}
