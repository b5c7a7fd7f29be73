// The text report `calibrate` prints: temperatures, then ECE / Brier / log loss before → after, per type and split.
import type { CalibrationFile, SplitMetrics } from './file';
import { MAX_TEMPERATURE, MIN_TEMPERATURE, type Metrics } from './metrics';

const fmt = (value: number) => (Number.isFinite(value) ? value.toFixed(4) : '–');
const change = (before: Metrics, after: Metrics, key: 'ece' | 'brier' | 'logLoss') =>
  `${fmt(before[key])} → ${fmt(after[key])}`;

/** Fewer labelled answers than this for a type and the report says its fit is rough. */
export const FEW_ANSWERS = 50;

function rows(name: string, split: SplitMetrics | undefined): string[][] {
  if (!split) return [];
  return (['noul', 'choice', 'score', 'all'] as const).flatMap((type) => {
    const m = split[type];
    if (!m) return [];
    return [
      [
        name,
        type,
        String(m.before.n),
        change(m.before, m.after, 'ece'),
        change(m.before, m.after, 'brier'),
        change(m.before, m.after, 'logLoss'),
      ],
    ];
  });
}

export function calibrationReport(file: CalibrationFile): string {
  const out: string[] = [];
  const { split, data } = file;
  out.push(
    `${data.answers} labelled answers from ${data.lines} requests in ${data.source}; ` +
      `${split.trainLines} requests fit, ${split.holdoutLines} held out (holdout ${split.holdout}, seed ${split.seed})`,
  );
  if (file.models.length > 0) out.push(`answered by ${file.models.join(', ')}`);
  for (const [type, t] of Object.entries(file.temperatures)) {
    const n = file.metrics.train[type as 'noul']?.before.n ?? 0;
    const notes = [
      ...(n < FEW_ANSWERS ? [`only ${n} answers to fit: rough`] : []),
      ...(t <= MIN_TEMPERATURE * 1.001 || t >= MAX_TEMPERATURE / 1.001
        ? ['at the search bound: the data cannot pin it']
        : []),
    ];
    out.push(`temperature ${type.padEnd(6)} ${t.toFixed(3)}${notes.length ? `  (${notes.join('; ')})` : ''}`);
  }
  const table = [
    ['split', 'type', 'n', 'ECE before → after', 'Brier before → after', 'log loss before → after'],
    ...rows('train', file.metrics.train),
    ...rows('holdout', file.metrics.holdout),
  ];
  const widths = table[0].map((_, c) => Math.max(...table.map((r) => r[c].length)));
  out.push(
    '',
    ...table.map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd(),
    ),
  );
  return out.join('\n') + '\n';
}
