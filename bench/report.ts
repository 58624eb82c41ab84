import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
/**
 * What a benchmark hands back: its figures, each with the baseline measured in the same run, the
 * ratio, and the target it is held to. `bench/run.ts` prints them as one table and as JSON, so two runs
 * can be compared row by row; a bench that returns none has failed.
 */

/** A bound on a figure's value or on its ratio to the baseline. */
export interface Target {
  of: 'value' | 'ratio';
  op: '<' | '≤' | '≥' | '>';
  bound: number;
}

/** One row of the summary. */
export interface Figure {
  /** Filled in by the runner. */
  bench?: string;
  figure: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  /** The target as printed (`ratio ≥ 0.5`, `≤ 25 s`), or null when the figure is context only. */
  target: string | null;
  met: boolean | null;
}

const holds = (v: number, t: Target) =>
  t.op === '<' ? v < t.bound : t.op === '≤' ? v <= t.bound : t.op === '≥' ? v >= t.bound : v > t.bound;

/**
 * A figure. The ratio is value / baseline unless given (some benches state baseline / value, so that
 * higher is better in both throughput and time ratios); a target is checked here.
 */
export function figure(
  name: string,
  value: number,
  unit: string,
  options: { baseline?: number; ratio?: number; target?: Target } = {},
): Figure {
  const { baseline, target } = options;
  const ratio = options.ratio ?? (baseline ? value / baseline : null);
  const checked = target?.of === 'ratio' ? ratio : value;
  return {
    figure: name,
    value,
    unit,
    baseline: baseline ?? null,
    ratio,
    target: target
      ? `${target.of === 'ratio' ? 'ratio ' : ''}${target.op} ${target.bound}${target.of === 'value' && unit ? ` ${unit}` : ''}`
      : null,
    met:
      target && checked !== null && Number.isFinite(checked) ? holds(checked, target) : target ? false : null,
  };
}

const num = (v: number | null) =>
  v === null ? '' : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(3);

/** The summary table: bench, figure, value, baseline, ratio, target, met / NOT met. */
export function summaryTable(rows: Figure[]): string {
  const cells = rows.map((r) => [
    r.bench ?? '',
    r.figure,
    `${num(r.value)} ${r.unit}`.trim(),
    num(r.baseline),
    num(r.ratio),
    r.target ?? '',
    r.met === null ? '' : r.met ? 'met' : 'NOT met',
  ]);
  const head = ['bench', 'figure', 'value', 'baseline', 'ratio', 'target', 'met'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i >= 2 && i <= 4 ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/** Where `bench/run.ts` asks a bench it started to write its figures (JSON). */
export const FIGURES_FILE_ENV = 'BENCH_FIGURES_FILE';

/**
 * Runs a bench's `main` when its file is the program itself (`tsx bench/gas.ts`, as `run.ts` starts
 * each bench): exit 0 when it finished, its figures written where `run.ts` asked; 1 with the error
 * printed when it threw.
 */
export function runIfMain(moduleUrl: string, main: () => Promise<unknown>): void {
  const program = process.argv[1];
  if (!program || moduleUrl !== pathToFileURL(path.resolve(program)).href) return;
  main().then(
    (figures) => {
      const file = process.env[FIGURES_FILE_ENV];
      if (file) writeFileSync(file, JSON.stringify(figures ?? []));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
