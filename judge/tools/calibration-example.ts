// npx tsx judge/tools/calibration-example.ts: the reliability diagram and report shown in docs/JUDGE.md, from
// synthetic labelled answers of a model over-confident by a factor 2 (it says p² renormalised where p is true),
// with labels drawn from p. Uses pre-computed "answers" lines, so no backend is involved. Writes
// docs/images/judge-reliability.svg and prints the report.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { calibrate } from '../src/calibration/calibrate';
import { parseLabelledJsonl } from '../src/calibration/data';
import { calibrationReport } from '../src/calibration/report';
import { reliabilitySvg } from '../src/calibration/svg';
import { withTemperature } from '../src/calibration/metrics';

const FACTOR = 2;
const LINES = 1500;
const out = path.resolve(
  process.argv[2] ?? path.join(__dirname, '..', '..', 'docs', 'images', 'judge-reliability.svg'),
);

let seed = 20261101;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const distribution = (n: number) => {
  const weights = Array.from({ length: n }, () => Math.exp(1.3 * gauss()));
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
};
const draw = (p: number[]) => {
  let u = random();
  for (let i = 0; i < p.length - 1; i++) if ((u -= p[i]) < 0) return i;
  return p.length - 1;
};
const said = (p: number[]) => withTemperature(p, 1 / FACTOR);
const byKey = <T>(keys: string[], p: T[]) => Object.fromEntries(keys.map((k, i) => [k, p[i]]));

const teams = ['billing', 'engineering', 'success', 'retention'];
const levels = ['No sign of leaving', 'Some dissatisfaction', 'Considering leaving', 'Has decided to cancel'];
const lines = Array.from({ length: LINES }, (_, i) => {
  const yes = distribution(2);
  const team = distribution(teams.length);
  const churn = distribution(levels.length);
  const [y, t, c] = [said(yes), said(team), said(churn)];
  return JSON.stringify({
    state: `Ticket ${i}`,
    questions: {
      refund_asked: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
      primary_team: {
        type: 'choice',
        instructions: 'Which team should own this request?',
        criteria: byKey(
          teams,
          teams.map(() => null),
        ),
      },
      churn_risk: { type: 'score', instructions: 'How likely is this customer to leave?', criteria: levels },
    },
    labels: { refund_asked: draw(yes) === 0, primary_team: teams[draw(team)], churn_risk: draw(churn) },
    answers: {
      refund_asked: { type: 'noul', noul: y[0] },
      primary_team: { type: 'choice', choice: teams[0], probabilities: byKey(teams, t), confidence: 0 },
      churn_risk: {
        type: 'score',
        score: 0,
        probabilities: byKey(
          levels.map((_, k) => String(k)),
          c,
        ),
        confidence: 0,
      },
    },
  });
});

const source = 'synthetic.jsonl';
calibrate({ lines: parseLabelledJsonl(lines.join('\n'), source), source, holdout: 0.2, seed: 0 }).then((result) => {
  writeFileSync(
    out,
    reliabilitySvg(result.reliability, `Reliability: a model over-confident by ${FACTOR} (synthetic)`),
  );
  process.stdout.write(calibrationReport(result.file) + `wrote ${out}\n`);
});
