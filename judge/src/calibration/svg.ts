// The reliability diagram: one panel per question type, accuracy against top-label confidence in 10 bins, before
// (grey) and after (blue) the fitted temperature; a perfectly calibrated model lies on the diagonal. Dots are sized
// by how many answers fall in the bin. Plain SVG, no fonts or scripts beyond the system sans-serif.
import type { ReliabilityPanel } from './calibrate';
import type { ReliabilityBin } from './metrics';

const PANEL = 260;
const PLOT = 200;
const LEFT = 44;
const TOP = 64;
const BEFORE = '#9aa0a6';
const AFTER = '#1a73e8';

const fmt = (value: number, digits = 3) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function series(bins: ReliabilityBin[], x0: number, y0: number, colour: string, total: number): string {
  const points = bins
    .filter((b) => b.count > 0)
    .map((b) => ({
      x: x0 + b.confidence * PLOT,
      y: y0 + (1 - b.accuracy) * PLOT,
      r: 2.5 + 6 * Math.sqrt(b.count / total),
    }));
  if (points.length === 0) return '';
  const line = `<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${points
    .map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`)
    .join(' ')}"/>`;
  const dots = points
    .map(
      (p) =>
        `<circle cx="${p.x.toFixed(1)}" cy="${p.y.toFixed(1)}" r="${p.r.toFixed(1)}" ` +
        `fill="${colour}" fill-opacity="0.8"/>`,
    )
    .join('');
  return line + dots;
}

function panel(p: ReliabilityPanel, index: number): string {
  const x0 = LEFT + index * PANEL;
  const y0 = TOP;
  const total = Math.max(
    1,
    p.before.reduce((sum, b) => sum + b.count, 0),
  );
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((t) => {
      const x = x0 + t * PLOT;
      const y = y0 + (1 - t) * PLOT;
      return (
        `<line x1="${x}" y1="${y0}" x2="${x}" y2="${y0 + PLOT}" stroke="#eee"/>` +
        `<line x1="${x0}" y1="${y}" x2="${x0 + PLOT}" y2="${y}" stroke="#eee"/>` +
        `<text x="${x}" y="${y0 + PLOT + 14}" text-anchor="middle">${t}</text>` +
        `<text x="${x0 - 6}" y="${y + 4}" text-anchor="end">${t}</text>`
      );
    })
    .join('');
  return [
    `<g>`,
    `<text x="${x0}" y="${y0 - 24}" font-weight="bold" font-size="13">` +
      `${escape(p.type)}  T = ${fmt(p.temperature, 2)}</text>`,
    `<text x="${x0}" y="${y0 - 8}">ECE ${fmt(p.eceBefore)} → ${fmt(p.eceAfter)} (${p.split}, n = ${total})</text>`,
    ticks,
    `<rect x="${x0}" y="${y0}" width="${PLOT}" height="${PLOT}" fill="none" stroke="#555"/>`,
    `<line x1="${x0}" y1="${y0 + PLOT}" x2="${x0 + PLOT}" y2="${y0}" stroke="#555" stroke-dasharray="4 3"/>`,
    series(p.before, x0, y0, BEFORE, total),
    series(p.after, x0, y0, AFTER, total),
    `<text x="${x0 + PLOT / 2}" y="${y0 + PLOT + 30}" text-anchor="middle">confidence (top option)</text>`,
    `<text transform="translate(${x0 - 32},${y0 + PLOT / 2}) rotate(-90)" text-anchor="middle">accuracy</text>`,
    `</g>`,
  ].join('');
}

export function reliabilitySvg(panels: ReliabilityPanel[], title = 'Reliability diagram'): string {
  const width = LEFT + Math.max(1, panels.length) * PANEL;
  const height = TOP + PLOT + 44;
  const legend =
    `<circle cx="${width - 190}" cy="14" r="5" fill="${BEFORE}"/><text x="${width - 180}" y="18">before</text>` +
    `<circle cx="${width - 120}" cy="14" r="5" fill="${AFTER}"/><text x="${width - 110}" y="18">after</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"`,
    ` font-family="sans-serif" font-size="11" fill="#222">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${LEFT}" y="18" font-size="14" font-weight="bold">${escape(title)}</text>`,
    legend,
    ...panels.map(panel),
    panels.length === 0 ? `<text x="${LEFT}" y="${TOP + 20}">no labelled answers</text>` : '',
    `</svg>\n`,
  ].join('');
}
