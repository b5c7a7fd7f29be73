// npx tsx judge/tools/screenshot-playground.ts [out.png]: the playground after judging its example (a noul, a choice
// and a score), served by a real judge server on 127.0.0.1 with a deterministic demo backend, shot in headless
// Chromium. Writes docs/images/judge-playground.png by default.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startJudgeServer } from '../src/server';
import { launchChromium } from './playground/browser';
import { DemoBackend } from './playground/demo-backend';

const out = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..', 'docs', 'images', 'judge-playground.png'));

async function main(): Promise<void> {
  const server = await startJudgeServer({
    apiKeys: ['screenshot-key'],
    backend: new DemoBackend(),
    log: () => undefined,
  });
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${server.url}/playground`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.click('#load-example');
    await page.click('#judge');
    await page.waitForSelector('.answer[data-question="frustration"] .bar-row');
    await page.click('#copy-curl');
    mkdirSync(path.dirname(out), { recursive: true });
    await page.screenshot({ path: out, fullPage: true });
    process.stdout.write(`wrote ${out}\n`);
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`screenshot-playground: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
