// One real stack for the whole e2e run: the loopback fakes, then Postgres 17 + n8n 2.41.1 with the project's
// nodes package, credentials (scripts/runtime/credentials), workflows (workflows/ and test/e2e/workflows/).
// Teardown scans n8n's database for the run's secrets (it fails the run if any is at rest), stops everything, and
// fails the run if any process of the stack is still alive.
// (E2E=0 leaves the e2e project out altogether: see vitest.config.ts.)
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startStack, type Stack } from '../../../scripts/runtime/stack';
import { REPO_ROOT } from '../../../scripts/runtime/n8n';
import { SLACK_ENTRY_WORKFLOW_ID } from '../../../scripts/runtime/local-slack';
import { readWorkflowFiles } from '../../../scripts/runtime/workflow-files';
import { isAlive, sleep } from '../../../scripts/runtime/process';
import { assertNoSecretsAtRest } from '../../../scripts/runtime/secret-scan';
import { E2E_SECRETS_AT_REST } from './secrets';
import type { E2EStackInfo } from './context';
import { fakeEnvName, fakes, type RunningFake } from './fakes';
import { listenOnLoopback, sendJson } from '../../fakes/http-util';
import { Pool } from 'pg';
import { runMigrations, updateInstanceSettings } from 'assistant-core';
import { setEmbeddingsCredential } from './embeddings';

async function withAssistantDatabase(url: string, work: (db: Pool) => Promise<void>): Promise<void> {
  const db = new Pool({ connectionString: url, max: 1 });
  try {
    await work(db);
  } finally {
    await db.end();
  }
}

export const E2E_WORKFLOWS_DIR = path.join(REPO_ROOT, 'test', 'e2e', 'workflows');

export default async function setup(project: TestProject) {
  const running: RunningFake[] = [];
  const fakeUrls: Record<string, string> = {};
  let stack: Stack | undefined;
  const teardown = async () => {
    const pids = stack?.pids() ?? [];
    let scanFailure: unknown;
    if (stack)
      await assertNoSecretsAtRest(stack.postgres.url, E2E_SECRETS_AT_REST).catch((error) => (scanFailure = error));
    await stack?.stop();
    for (const fake of running.splice(0).reverse()) await fake.close().catch(() => undefined);
    // Nothing of the stack may outlive the run.
    for (let i = 0; i < 50 && pids.some(isAlive); i++) await sleep(100);
    const leftovers = pids.filter(isAlive);
    if (leftovers.length > 0) throw new Error(`e2e teardown: processes still running: ${leftovers.join(', ')}`);
    if (scanFailure) throw scanFailure;
  };

  try {
    for (const fake of fakes) {
      const started = await fake.start();
      running.push(started);
      const name = fakeEnvName(fake.name);
      fakeUrls[name] = started.url;
      process.env[name] = started.url;
    }

    // Every triggered workflow but the Slack entry: it connects to Slack only with the Slack app's tokens, and its
    // e2e switches it on against the loopback Slack.
    const activate = readWorkflowFiles([path.join(REPO_ROOT, 'workflows'), E2E_WORKFLOWS_DIR])
      .filter((workflow) => workflow.triggered && workflow.id !== SLACK_ENTRY_WORKFLOW_ID)
      .map((workflow) => workflow.id);
    stack = await startStack({
      activate,
      extraWorkflowDirs: [E2E_WORKFLOWS_DIR],
      credentialEnv: fakeUrls,
      gatewayTestClock: true,
      log: (line) => console.log(`[e2e stack] ${line}`),
    });
  } catch (error) {
    await teardown().catch(() => undefined);
    throw error;
  }

  // Capture (the memory capture workflow, every minute) reads idle conversations in the background, and the nightly
  // consolidation tidies the memories of users in their quiet hours (the run may fall in them); both are off for the
  // run, so that no test's memories, model calls, ledger or spending are disturbed by them. Their e2e switch them on.
  await withAssistantDatabase(stack.postgres.url, async (db) => {
    await runMigrations(db);
    await updateInstanceSettings(db, { captureIdleMinutes: 0, memoryBudget: 0 });
  });

  // Embeddings are off for the run (the credential's base URL empty, as an install without them writes it), so that
  // recall and the write gate work by words as the tests expect; the embeddings e2e switches them on.
  await setEmbeddingsCredential(stack, false);

  // What tests (in workers) may ask of the stack the main process owns: its PIDs now, and a restart of n8n or of the
  // browser service.
  const started = stack;
  const control = await listenOnLoopback(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    if (req.method === 'GET' && url.pathname === '/pids') {
      return sendJson(res, 200, { n8n: started.n8n.pid(), all: started.pids() });
    }
    if (req.method === 'POST' && url.pathname === '/n8n/restart') {
      await started.n8n.restart({ downMs: Number(url.searchParams.get('down_ms') ?? 0) });
      return sendJson(res, 200, { pids: started.pids() });
    }
    if (req.method === 'POST' && url.pathname === '/browser/restart') {
      if (!started.browser) return sendJson(res, 409, { error: 'the stack has no browser service (no Chromium)' });
      await started.browser.restart();
      return sendJson(res, 200, { pid: started.browser.pid() });
    }
    sendJson(res, 404, { error: 'unknown control call' });
  });
  running.push(control);

  const info: E2EStackInfo = {
    n8nUrl: stack.n8nUrl,
    webhookUrl: stack.webhookUrl,
    apiKey: stack.apiKey,
    owner: stack.owner,
    postgresUrl: stack.postgres.url,
    userFolder: stack.userFolder,
    logFile: stack.logFile,
    browserLogFile: stack.browser?.logFile ?? null,
    browser: stack.browser ? { url: stack.browser.url, key: stack.browser.key } : null,
    workflows: stack.workflows,
    fakeUrls,
    gateway: {
      url: stack.gateway!.url,
      key: stack.gateway!.key,
      logFile: stack.gateway!.logFile ?? null,
      clockFile: stack.gateway!.clockFile ?? null,
    },
    pids: stack.pids(),
    controlUrl: control.url,
  };
  project.provide('e2eStack', info);
  return teardown;
}
