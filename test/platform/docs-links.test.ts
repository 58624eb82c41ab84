import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { anchors, links, markdownPages, readPage, root } from '../support/markdown.ts';

/**
 * Every relative link of README.md and docs/ (and every other page of the repository) leads
 * somewhere: the file or directory exists, and a `#anchor` names a heading of the page it points to,
 * by GitHub's rules. Moving a section without its links fails here, not in a reader's browser.
 */

const pages = markdownPages();

it('finds the pages: README.md and docs/', () => {
  expect(pages).toContain('README.md');
  expect(pages.filter((p) => p.startsWith('docs/')).length).toBeGreaterThan(5);
});

it('every relative link resolves to a file, and every anchor to a heading of its page', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of pages) {
    for (const { target, line } of links(readPage(page))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: … are not ours to check
      checked++;
      const [file = '', anchor] = target.split('#', 2);
      const resolved = file === '' ? page : path.normalize(path.join(path.dirname(page), decodeURI(file)));
      const where = `${page}:${line} → ${target}`;
      if (resolved.startsWith('..') || !existsSync(path.join(root, resolved))) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!resolved.endsWith('.md') || statSync(path.join(root, resolved)).isDirectory()) {
        broken.push(`${where}: an anchor into a page that is not Markdown`);
        continue;
      }
      if (!anchors(readPage(resolved)).has(decodeURIComponent(anchor)))
        broken.push(`${where}: no heading with that anchor in ${resolved}`);
    }
  }
  expect(broken).toEqual([]);
  expect(checked).toBeGreaterThan(40);
});

it('computes anchors as GitHub does', () => {
  const page = [
    '# Clients: TypeScript, Python, PHP',
    '## `POST /v1/cashier/step` and the [page](x.md)',
    '## Set-up: two commands',
    '## Set-up: two commands',
    '```md',
    '## not a heading',
    '```',
  ].join('\n');
  expect([...anchors(page)]).toEqual([
    'clients-typescript-python-php',
    'post-v1cashierstep-and-the-page',
    'set-up-two-commands',
    'set-up-two-commands-1',
  ]);
});
