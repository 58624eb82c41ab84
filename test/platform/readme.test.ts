import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

/** What a newcomer reads first is true: two command lines, and CI runs exactly the second. */

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

it('the set-up section is exactly two command lines, and .ci/run runs the test one', () => {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('## Set-up: two commands'));
  expect(section).not.toBe(readme); // the heading exists
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  expect(block.trim().split('\n')).toEqual(['npm install && npm start', 'npm test']);
  const ci = read('.ci/run').split('\n');
  expect(ci).toContain('npm test');
});
