// The playground in real headless Chromium (Debian's /usr/bin/chromium driven by playwright-core): build a noul,
// a choice and a score question through the page's controls, judge, and read the bars back from the DOM; they must
// be the API's answer to the same request. Then the same with the open mode off: the page asks for a key.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import type { Answer, SystemOneResponse } from '../../src/protocol/types';
import { CHROMIUM, hasChromium, launchChromium } from '../../tools/playground/browser';
import { ExactBackend } from '../helpers/exact-backend';

const KEY = 'browser-test-key';
const available = hasChromium();
if (!available) console.warn(`\n!!! ${CHROMIUM} is missing: the playground's browser test is SKIPPED. !!!\n`);

/** Weights 1..n: every option gets a different, known probability. */
const ramp = () =>
  new ExactBackend((q) => q.options.map((_, i) => (i + 1) / ((q.options.length * (q.options.length + 1)) / 2)));

const STATE = 'Subject: charged twice\nI was billed twice for March. Please refund one of the charges by Friday.';
/** What the test builds in the page, and sends to the API to compare. */
const REQUEST = {
  model: 'jev-latest',
  state: STATE,
  questions: {
    refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
    team: {
      type: 'choice',
      instructions: 'Which team should handle it?',
      criteria: { billing: 'Charges and refunds', engineering: null, success: 'How-to questions' },
    },
    anger: {
      type: 'score',
      instructions: 'How upset is the customer?',
      criteria: ['calm', 'annoyed', 'angry', 'furious'],
    },
  },
};

let browser: Browser;
let open: JudgeServer;
let closed: JudgeServer;

beforeAll(async () => {
  if (!available) return;
  open = await startJudgeServer({ apiKeys: [KEY], backend: ramp(), log: () => undefined });
  closed = await startJudgeServer({
    apiKeys: [KEY],
    backend: ramp(),
    playground: { open: false },
    log: () => undefined,
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await open?.close();
  await closed?.close();
});

async function apiAnswer(server: JudgeServer): Promise<SystemOneResponse> {
  const response = await fetch(`${server.url}/v1/systemone`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify(REQUEST),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as SystemOneResponse;
}

/** Builds REQUEST with the page's own controls: the state editor, "+ noul/choice/score", option and level rows. */
async function buildRequest(page: Page): Promise<void> {
  await page.fill('#state', STATE);
  const last = page.locator('#questions .question').last();

  await page.click('button[data-add="noul"]');
  await last.locator('.q-name').fill('refund');
  await last.locator('.q-instructions').fill(REQUEST.questions.refund.instructions);

  await page.click('button[data-add="choice"]');
  await last.locator('.q-name').fill('team');
  await last.locator('.q-instructions').fill(REQUEST.questions.team.instructions);
  await last.locator('.add-option').click(); // two rows come with the question; a third
  const options = last.locator('.option');
  await options.nth(0).locator('.opt-label').fill('billing');
  await options.nth(0).locator('.opt-desc').fill('Charges and refunds');
  await options.nth(1).locator('.opt-label').fill('engineering');
  await options.nth(2).locator('.opt-label').fill('success');
  await options.nth(2).locator('.opt-desc').fill('How-to questions');

  await page.click('button[data-add="score"]');
  await last.locator('.q-name').fill('anger');
  await last.locator('.q-instructions').fill(REQUEST.questions.anger.instructions);
  await last.locator('.add-level').click(); // three rows come with the question; a fourth
  const levels = last.locator('.level-text');
  for (const [i, level] of REQUEST.questions.anger.criteria.entries()) await levels.nth(i).fill(level);
}

interface ReadAnswer {
  type: string;
  bars: Record<string, number>;
  widths: Record<string, number>;
  texts: Record<string, string>;
  confidence: number;
}

/** The little of the DOM the reader touches (the tests compile without the DOM library). */
interface DomElement {
  dataset: Record<string, string | undefined>;
  textContent: string | null;
  style: { width: string };
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

/** Every answer as the page shows it: option → probability (data attribute), bar width (%) and printed value. */
async function readAnswers(page: Page): Promise<Record<string, ReadAnswer>> {
  return page.$$eval('#answers .answer', (elements) =>
    Object.fromEntries(
      (elements as unknown as DomElement[]).map((box) => {
        const rows = Array.from(box.querySelectorAll('.bar-row'));
        const by = <T>(f: (row: DomElement) => T) => Object.fromEntries(rows.map((r) => [r.dataset.option!, f(r)]));
        return [
          box.dataset.question!,
          {
            type: box.dataset.type!,
            bars: by((r) => Number(r.dataset.probability)),
            widths: by((r) => parseFloat(r.querySelector('.bar-fill')!.style.width)),
            texts: by((r) => r.querySelector('.bar-value')!.textContent!),
            confidence: Number(box.querySelector('.confidence')!.dataset.confidence),
          },
        ];
      }),
    ),
  );
}

/** The distribution an API answer gives, keyed like the page's bars. */
function expectedBars(answer: Answer): Record<string, number> {
  return answer.type === 'noul' ? { true: answer.noul, false: 1 - answer.noul } : answer.probabilities;
}

function compare(shown: Record<string, ReadAnswer>, api: SystemOneResponse): void {
  expect(Object.keys(shown)).toEqual(['refund', 'team', 'anger']);
  for (const [name, answer] of Object.entries(api.answers)) {
    const page = shown[name];
    expect(page.type).toBe(answer.type);
    const expected = expectedBars(answer);
    expect(Object.keys(page.bars)).toEqual(Object.keys(expected));
    for (const [option, p] of Object.entries(expected)) {
      expect(page.bars[option]).toBeCloseTo(p, 12);
      expect(page.widths[option]).toBeCloseTo(100 * p, 1);
      expect(page.texts[option]).toBe(`${(100 * p).toFixed(1)} %`);
    }
    if (answer.type !== 'noul') expect(page.confidence).toBeCloseTo(answer.confidence, 12);
  }
}

describe.skipIf(!available)('playground in headless Chromium', () => {
  it('open mode: builds a noul, a choice and a score, judges without a key, shows the API answer as bars', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    await page.goto(`${open.url}/playground`);
    await page.waitForSelector('body[data-ready="true"]');
    await expect.poll(() => page.textContent('#access')).toContain('Open playground');

    await buildRequest(page);
    await page.click('#judge');
    await page.waitForSelector('.answer[data-question="anger"] .bar-row');
    const api = await apiAnswer(open);
    compare(await readAnswers(page), api);
    expect(Number(await page.getAttribute('#input-tokens', 'data-tokens'))).toBe(api.usage.input_tokens);
    expect(Number(await page.getAttribute('#latency', 'data-ms'))).toBeGreaterThan(0);
    expect(await page.textContent('#answered-model')).toBe(api.model);
    expect(await page.textContent('.answer[data-question="team"] .verdict')).toBe('→ success');

    // "Copy as curl": the snippet is the same request, aimed at /v1/systemone with a key from the environment.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: open.url });
    await page.click('#copy-curl');
    const curl = (await page.textContent('#snippet'))!;
    expect(curl).toContain(`curl -s ${open.url}/v1/systemone`);
    expect(curl).toContain('authorization: Bearer $JUDGE_API_KEY');
    expect(JSON.parse(curl.slice(curl.indexOf("-d '") + 4, -1))).toEqual(REQUEST);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(curl);
    // "Copy as TypeScript SDK": the SDK's question helpers.
    await page.click('#copy-sdk');
    const sdk = (await page.textContent('#snippet'))!;
    expect(sdk).toContain("import { TypeSafeClient, choice, noul, score } from '@typesafe-ai/sdk';");
    expect(sdk).toContain(`baseURL: "${open.url}"`);
    expect(sdk).toContain('"refund": noul("Does the customer ask for a refund?"),');
    expect(sdk).toContain('"anger": score("How upset is the customer?", [');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('open mode off: the page says why and asks for a key; with the key it judges through /v1/systemone', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${closed.url}/playground`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.getAttribute('#access', 'class')).toBe('access closed');
    expect(await page.textContent('#access')).toContain('Judging without a key is off: playground.open is false.');

    await buildRequest(page);
    await page.click('#judge');
    expect(await page.textContent('#status')).toBe('Enter an API key: playground.open is false.');
    expect(await page.locator('#answers .answer').count()).toBe(0);

    await page.fill('#api-key', 'wrong-key');
    await page.click('#judge');
    await expect.poll(() => page.textContent('#answers')).toContain('401');

    await page.fill('#api-key', KEY);
    await page.click('#judge');
    await page.waitForSelector('.answer[data-question="anger"] .bar-row');
    compare(await readAnswers(page), await apiAnswer(closed));
    expect(await page.textContent('#meta')).toContain('with your key');
    await context.close();
  });
});
