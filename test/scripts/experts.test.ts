// scripts/experts.ts, its command line on a real Postgres 17 and a loopback server speaking n8n's public API: lists,
// installs (the workflow created and published, the expert registered), removes, and names bad commands and keys.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssistantDatabase, type TestDatabase } from '../../assistant/test/database';
import { startN8nPublicApiFake, type N8nPublicApiFake } from '../fakes/n8n-public-api';

const exec = promisify(execFile);
const tsx = 'node_modules/.bin/tsx';
const API_KEY = 'cli-test-n8n-api-key';
let db: TestDatabase;
let n8n: N8nPublicApiFake;

const run = (args: string[], apiKey = API_KEY) =>
  exec(tsx, ['scripts/experts.ts', ...args, '--url', db.server.url, '--n8n-url', n8n.url], {
    env: { ...process.env, N8N_API_KEY: apiKey },
  });
const failure = (e: { stderr: string; code: number }) => e;

beforeAll(async () => {
  db = await startAssistantDatabase();
  const agent = JSON.parse(readFileSync(path.join(__dirname, '../../workflows/assistant-agent.json'), 'utf8'));
  n8n = await startN8nPublicApiFake(API_KEY, [{ ...agent, active: true, tags: [] }]);
});
afterAll(async () => {
  await n8n?.close();
  await db?.stop();
});

describe('scripts/experts.ts', () => {
  it('lists, installs and removes a catalogue expert', async () => {
    const listed = (await run(['list'])).stdout;
    expect(listed).toMatch(/^installed:\n {2}analyst +shipped +\(chat model setting\)/);
    expect(listed).toMatch(/in the catalogue:\n[\s\S]*\n {2}news-digest +/);
    const installed = (await run(['install', 'news-digest'])).stdout;
    expect(installed).toMatch(/^Installed the expert "News Digest" \(news-digest\): ask it with ask_expert/);
    const created = [...n8n.workflows.values()].find((workflow) => workflow.name.includes('news digest'));
    expect(created).toMatchObject({ active: true });
    const row = await db.pool.query(`SELECT source, workflow_id FROM assistant.experts WHERE id = 'news-digest'`);
    expect(row.rows).toEqual([{ source: 'catalogue', workflow_id: created?.id }]);
    expect((await run(['list'])).stdout).toMatch(/ {2}news-digest +catalogue/);
    expect((await run(['remove', 'news-digest'])).stdout).toBe('Removed the expert "news-digest" and its workflow.\n');
    expect(n8n.workflows.has(created!.id)).toBe(false);
  });

  it('names a bad command, a missing id, an unknown expert and a wrong key', async () => {
    const unknownCommand = (await run(['upgrade']).catch(failure)) as { stderr: string; code: number };
    expect(unknownCommand.code).toBe(1);
    expect(unknownCommand.stderr).toMatch(/^experts: unknown command "upgrade". usage: experts.ts list/);
    expect((await run(['install']).catch(failure)).stderr).toMatch(/^experts: install: give the expert id/);
    expect((await run(['install', 'astrologer']).catch(failure)).stderr).toMatch(
      /^experts: expertId: no expert "astrologer" in the catalogue/,
    );
    expect((await run(['install', 'news-digest'], 'wrong-key').catch(failure)).stderr).toMatch(
      /^experts: GET \/api\/v1\/workflows\/assistantAgent01: n8n answered 401 \(the API key is wrong or revoked\)/,
    );
    const missingFile = '/nonexistent/n8n-api-key';
    expect((await run(['install', 'news-digest', '--api-key-file', missingFile], '').catch(failure)).stderr).toMatch(
      /^experts: no n8n API key: set N8N_API_KEY, give --api-key-file/,
    );
  });
});
