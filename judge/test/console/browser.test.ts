// The console in real headless Chromium (Debian's /usr/bin/chromium driven by playwright-core): a wrong password is
// refused on the page; signed in, create a key with limits, judge with it from the page's playground, see its usage
// in the table, revoke it, and (keys read on every request) the next call with it is refused.
// CONSOLE_SCREENSHOTS=1 writes the docs' screenshots (docs/images/judge-console-*.png).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { CHROMIUM, hasChromium, launchChromium } from '../../tools/playground/browser';
import { ExactBackend } from '../helpers/exact-backend';
import { repoRoot } from '../helpers/repo';

const PASSWORD = 'console browser password';
const available = hasChromium();
if (!available) console.warn(`\n!!! ${CHROMIUM} is missing: the console's browser test is SKIPPED. !!!\n`);

let browser: Browser;
let server: JudgeServer;
let page: Page;

beforeAll(async () => {
  if (!available) return;
  server = await startJudgeServer({
    apiKeys: ['console-browser-env-key'],
    backend: new ExactBackend((q) => q.options.map((_, i) => (i === 0 ? 0.8 : 0.2 / (q.options.length - 1)))),
    keys: {
      store: { kind: 'file', file: path.join(mkdtempSync(path.join(tmpdir(), 'console-')), 'keys.json') },
      cacheTtlMs: 0,
    },
    console: { password: PASSWORD },
    log: () => undefined,
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const screenshot = async (name: string) => {
  if (process.env.CONSOLE_SCREENSHOTS === '1') {
    await page.screenshot({
      path: path.join(repoRoot, 'docs', 'images', `judge-console-${name}.png`),
      fullPage: true,
    });
  }
};

describe.skipIf(!available)('the console in Chromium', () => {
  it('refuses a wrong password on the page', async () => {
    await page.goto(`${server.url}/console`);
    await page.fill('#password', 'not the password');
    await page.click('#sign-in-form button[type=submit]');
    await expect.poll(() => page.textContent('#notice')).toBe('That is not the console password.');
    expect(await page.isVisible('#tabs')).toBe(false);
  });

  it('signs in, creates a key, judges with it, shows its usage, revokes it; the key is then refused', async () => {
    await page.fill('#password', PASSWORD);
    await page.click('#sign-in-form button[type=submit]');
    await page.waitForSelector('#keys:not([hidden])');

    await page.fill('#key-name', 'support triage');
    await page.fill('#key-rate', '5');
    await page.fill('#key-month', '2000000');
    await page.click('#create-form button[type=submit]');
    await page.waitForSelector('#new-key:not([hidden])');
    const key = (await page.textContent('#new-key-value'))!;
    expect(key).toMatch(/^s1k_[0-9a-f]{12}_/);
    const id = key.split('_')[1];
    const row = page.locator(`#key-table tr[data-key-id="${id}"]`);
    await expect
      .poll(() => row.locator('td').allTextContents())
      .toEqual([id, 'support triage', expect.any(String), 'active', '5 requests/s, 2,000,000 tokens/month', 'Revoke']);
    await screenshot('keys');

    await page.click('button[data-tab="try"]');
    await page.fill('#try-key', key);
    await page.fill('#try-state', 'Subject: charged twice. Please refund one of the charges.');
    await page.fill('#try-question', 'Does the customer ask for a refund?');
    await page.click('#try-form button[type=submit]');
    await expect
      .poll(() => page.textContent('#try-result'))
      .toMatch(/^Yes with probability 0\.800 \((\d+) input tokens\)\.$/);
    const tokens = /\((\d+) input tokens\)/.exec((await page.textContent('#try-result'))!)![1];

    await page.click('button[data-tab="usage"]');
    const usage = page.locator(`#usage-table tbody tr[data-key-id="${id}"]`);
    await expect.poll(() => usage.locator('td.requests, td.tokens').allTextContents()).toEqual(['1', tokens]);
    expect(await page.locator('#usage-chart rect').count()).toBe(1);
    await screenshot('usage');

    await page.click('button[data-tab="keys"]');
    page.once('dialog', (dialog) => void dialog.accept());
    await row.locator('button.revoke').click();
    await expect.poll(() => row.locator('td.status').textContent()).toMatch(/^revoked \d{4}-\d{2}-\d{2}$/);
    const refused = await fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'jev-latest', state: 'x', questions: { q: { type: 'noul', instructions: 'y?' } } }),
    });
    expect(refused.status).toBe(401);
  });
});
