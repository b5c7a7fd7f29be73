// A PNG of a workflow as an operator sees it in n8n's editor: starts a throw-away stack the way the tests do
// (scripts/runtime/stack.ts: Postgres 17 + n8n 2.41.1, the nodes package from dist/, the credentials from their
// templates, workflows/), signs in to the editor as the owner in headless Chromium, opens the workflow, zooms to fit
// and saves the canvas. Everything it started is stopped again, also on failure or Ctrl-C.
//
//   node_modules/.bin/tsx scripts/screenshot-workflow.ts [--workflow=<id>] [--out=<file.png>]
//       [--width=2400] [--height=1000] [--scale=2] [--chromium=/usr/bin/chromium]
//
// Defaults: the agent workflow (assistantAgent01) into docs/images/assistant-agent-workflow.png. Needs Debian's
// Chromium (`apt-get install -y chromium`) and the playwright-core package (no browser download: it drives the
// system's Chromium). Nothing is activated, so no trigger reaches out (a Telegram Trigger would call Telegram).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPO_ROOT } from './runtime/n8n';
import { readWorkflowFiles, startStack, WORKFLOWS_DIR, type Stack } from './runtime/stack';

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// Functions passed to page.evaluate run in the page; the project compiles without the DOM library, so the little
// of it they use is declared here.
interface PageRect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
interface PageElement {
  getBoundingClientRect(): PageRect;
}
declare const document: {
  fonts: { ready: Promise<unknown> };
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement> & { length: number };
};

/** The editor's buttons floating over the canvas (n8n 2.41.1's data-test-ids). */
const HIDDEN_WHILE_SHOOTING = [
  '[data-test-id="canvas-controls"]',
  '[data-test-id="execute-workflow-button"]',
  '[data-test-id="node-creator-plus-button"]',
  '[data-test-id="command-bar-button"]',
  '[data-test-id="toggle-focus-panel-button"]',
  '[data-test-id="instance-ai-canvas-action-button"]',
  '[data-test-id^="execute-workflow-button-"]',
];

interface Options {
  workflow: string;
  out: string;
  width: number;
  height: number;
  scale: number;
  chromium: string;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    workflow: 'assistantAgent01',
    out: path.join(REPO_ROOT, 'docs', 'images', 'assistant-agent-workflow.png'),
    width: 2400,
    height: 1000,
    scale: 2,
    chromium: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  };
  for (const arg of argv) {
    const match = /^--(workflow|out|width|height|scale|chromium)=(.+)$/.exec(arg);
    if (!match) {
      throw new Error(
        `unknown argument "${arg}"; usage: screenshot-workflow.ts [--workflow=<id>] [--out=<file.png>] ` +
          '[--width=2400] [--height=1000] [--scale=2] [--chromium=/usr/bin/chromium]',
      );
    }
    const [, key, value] = match;
    if (key === 'width' || key === 'height' || key === 'scale') {
      const number = Number(value);
      if (!Number.isFinite(number) || number <= 0) throw new Error(`--${key} must be a positive number`);
      options[key] = number;
    } else if (key === 'out') {
      options.out = path.resolve(value);
    } else {
      options[key as 'workflow' | 'chromium'] = value;
    }
  }
  return options;
}

const log = (line: string) => console.log(`[screenshot] ${line}`);

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const workflow = readWorkflowFiles([WORKFLOWS_DIR]).find((w) => w.id === options.workflow);
  if (!workflow) throw new Error(`no workflow with id "${options.workflow}" in ${WORKFLOWS_DIR}`);
  // The canvas shows the nodes of the workflow file (sticky notes included).
  const nodeCount = (JSON.parse(readFileSync(workflow.file, 'utf8')) as { nodes: unknown[] }).nodes.length;

  if (!existsSync(options.chromium)) {
    throw new Error(`no Chromium at ${options.chromium}: apt-get install -y chromium, or pass --chromium=<path>`);
  }

  let stack: Stack | undefined;
  let browser: Browser | undefined;
  // Ctrl-C or SIGTERM: whatever step is running fails (closing the browser ends any wait on the page), or, during
  // the stack's start-up, the start finishes first; either way `finally` below stops what was started.
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping`);
    interrupted = signal;
    void browser?.close().catch(() => undefined);
  };
  const checkInterrupted = () => {
    if (interrupted) throw new Error(`interrupted (${interrupted})`);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    stack = await startStack({ activate: 'none', log: (line) => log(`stack: ${line}`) });
    checkInterrupted();
    browser = await chromium.launch({ executablePath: options.chromium, headless: true, args: CHROMIUM_FLAGS });
    checkInterrupted();
    const context = await browser.newContext({
      viewport: { width: options.width, height: options.height },
      deviceScaleFactor: options.scale,
    });
    const page = await context.newPage();

    // Sign in through the editor's own form.
    await page.goto(`${stack.n8nUrl}/signin`);
    await page.locator('input[type="email"], input[name="emailOrLdapLoginId"]').first().fill(stack.owner.email);
    await page.locator('input[type="password"]').first().fill(stack.owner.password);
    await page.locator('button[type="submit"], [data-test-id="form-submit-button"]').first().click();
    await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
    log(`signed in as ${stack.owner.email}`);

    await page.goto(`${stack.n8nUrl}/workflow/${options.workflow}`);
    const nodes = page.locator('.vue-flow__node');
    await nodes.first().waitFor({ timeout: 60_000 });
    await page.waitForFunction((count) => document.querySelectorAll('.vue-flow__node').length >= count, nodeCount, {
      timeout: 60_000,
    });
    log(`canvas shows ${await nodes.count()} nodes of "${workflow.name}"`);
    const { tags } = await stack.api<{ tags?: Array<{ name: string }> }>(`/workflows/${options.workflow}`);
    log(`tags in n8n: ${(tags ?? []).map((tag) => tag.name).join(', ') || '(none)'}`);

    // Zoom to fit (the canvas's own button; "1" is its keyboard shortcut), then let the transition end.
    const fit = page.locator('[data-test-id="zoom-to-fit"]');
    if (await fit.count()) await fit.first().click();
    else await page.keyboard.press('1');
    await page.mouse.move(0, 0);
    await page.evaluate(() => document.fonts.ready);
    await page.waitForTimeout(1_000);

    // The picture is the workflow: the canvas's floating buttons are hidden, and the shot is cut to the nodes
    // (sticky notes included) with a small margin.
    await page.addStyleTag({ content: `${HIDDEN_WHILE_SHOOTING.join(', ')} { visibility: hidden !important; }` });
    const clip = await page.evaluate((margin) => {
      const canvas = document.querySelector('[data-test-id="canvas"]')?.getBoundingClientRect();
      const rects = [...document.querySelectorAll('.vue-flow__node')].map((node) => node.getBoundingClientRect());
      if (!canvas || rects.length === 0) return undefined;
      const left = Math.max(canvas.left, Math.min(...rects.map((r) => r.left)) - margin);
      const top = Math.max(canvas.top, Math.min(...rects.map((r) => r.top)) - margin);
      const right = Math.min(canvas.right, Math.max(...rects.map((r) => r.right)) + margin);
      const bottom = Math.min(canvas.bottom, Math.max(...rects.map((r) => r.bottom)) + margin);
      return { x: left, y: top, width: right - left, height: bottom - top };
    }, 24);

    mkdirSync(path.dirname(options.out), { recursive: true });
    await page.screenshot({ path: options.out, ...(clip ? { clip } : {}) });
    log(`wrote ${path.relative(process.cwd(), options.out) || options.out}`);
  } catch (error) {
    throw interrupted ? new Error(`interrupted (${interrupted})`) : error;
  } finally {
    await browser?.close().catch(() => undefined);
    await stack?.stop().catch((error) => log(`stopping the stack: ${(error as Error).message}`));
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    log('stopped everything it started');
  }
}

main().catch((error) => {
  const message = (error as Error).message ?? String(error);
  console.error(
    `[screenshot] failed: ${message.startsWith('interrupted') ? message : ((error as Error).stack ?? message)}`,
  );
  process.exitCode = message.startsWith('interrupted') ? 130 : 1;
});
