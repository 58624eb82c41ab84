import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { AppError, ERROR_STATUS, PUBLIC_ERROR_CODES } from '../../src/errors.ts';
import { TRANSITIONS } from '../../src/modules/session/session.machine.ts';

/** The docs' reference tables say what the code does: error codes, and the cashier step body. */

// Each table is looked up by the text before it, in the page that carries it.
const readme = ['docs/integration.md', 'docs/sessions.md']
  .map((page) => readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8'))
  .join('\n');

/** The rows of the first Markdown table after a heading or sentence, as trimmed cells without backticks. */
function tableAfter(marker: string): string[][] {
  const start = readme.indexOf(marker);
  expect(start, marker).toBeGreaterThan(-1);
  const lines = readme.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim().replace(/`/g, '')),
    );
  }
  return rows;
}

it('the error-code table lists exactly the envelope codes, with their status and retry advice', () => {
  const rows = tableAfter('### Error codes');
  expect(rows.map((r) => r[0])).toEqual([...PUBLIC_ERROR_CODES]);
  for (const [code, status, when, retry] of rows) {
    const error = new AppError(code as keyof typeof ERROR_STATUS, 'x');
    expect(Number(status), code).toBe(error.status);
    expect(when, code).not.toBe('');
    expect(retry?.startsWith('yes'), code).toBe(error.retryable);
  }
});

it('the error table names every status the protocol refusals answer with as validation', () => {
  const validation = tableAfter('### Error codes').find((r) => r[0] === 'validation')?.[2] ?? '';
  const protocol = Object.entries(ERROR_STATUS).filter(
    ([code]) => !(PUBLIC_ERROR_CODES as readonly string[]).includes(code),
  );
  for (const [code, status] of protocol) expect(validation, code).toContain(String(status));
});

it('the cashier step table gives each step’s forward action, as the step machine has it', () => {
  const rows = tableAfter('`POST /v1/cashier/step` takes');
  const forward = Object.entries(TRANSITIONS)
    .filter(([, transitions]) => transitions.length > 0)
    .map(([step, transitions]) => [step, transitions[0]?.action]);
  expect(rows.map((r) => [r[0], r[1]])).toEqual(forward);
});
