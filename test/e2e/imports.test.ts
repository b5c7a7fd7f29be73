// Upgrades never silently discard the operator's edits, on the real n8n: a kept instance imports a workflow only when
// it is missing or newer in the repo, keeps an edited one as a copy before replacing it, leaves a workflow the
// operator switched off alone, and rewrites a credential only when its settings changed. The container's import
// script (docker-compose.yml) follows the same rules through the real n8n CLI, and lists what to switch on.
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N8N_BIN, NODE24 } from '../../scripts/runtime/n8n';
import { createDatabase, startPostgres, type PostgresServer } from '../../scripts/runtime/postgres';
import { startStack, WORKFLOWS_DIR, type Stack, type StackOptions } from '../../scripts/runtime/stack';

const MODELS = 'sysOneModels0001'; // a webhook workflow (activated when imported)
const RECALL = 'asstToolRecall01'; // a sub-workflow tool
const work = mkdtempSync(path.join(tmpdir(), 'imports-'));
const workflowsDir = path.join(work, 'workflows');
const credentialsDir = path.join(work, 'credentials');
let postgres: PostgresServer;
let stack: Stack | undefined;

interface ApiWorkflow {
  id: string;
  name: string;
  active: boolean;
  nodes: Array<{ name: string; position: number[] }>;
  connections: unknown;
  settings: unknown;
}

const fileOf = (id: string) => path.join(workflowsDir, `${id}.json`);
function raiseVersion(id: string): void {
  const json = JSON.parse(readFileSync(fileOf(id), 'utf8'));
  json.meta.version += 1;
  writeFileSync(fileOf(id), JSON.stringify(json, null, 2));
}

const options = (credentialValue: string): StackOptions => ({
  postgres,
  userFolder: path.join(work, 'n8n'),
  importStateFile: path.join(work, 'import-state.json'),
  workflowDirs: [workflowsDir],
  credentialDirs: [credentialsDir],
  credentialEnv: { IMPORT_TEST_VALUE: credentialValue },
  activate: 'triggered',
});

beforeAll(async () => {
  chmodSync(work, 0o755);
  mkdirSync(workflowsDir);
  mkdirSync(credentialsDir);
  for (const file of ['systemone-models.json', 'assistant-tool-recall.json']) {
    const json = JSON.parse(readFileSync(path.join(WORKFLOWS_DIR, file), 'utf8'));
    writeFileSync(fileOf(json.id), JSON.stringify(json, null, 2));
  }
  writeFileSync(
    path.join(credentialsDir, 'import-test.json'),
    JSON.stringify({
      id: 'importTestCred01',
      name: 'Import Test Header',
      type: 'httpHeaderAuth',
      data: { name: 'X-Test', value: '${IMPORT_TEST_VALUE}' },
    }),
  );
  postgres = await startPostgres({ database: 'n8n' });
});

afterAll(async () => {
  await stack?.stop();
  await postgres?.stop();
  rmSync(work, { recursive: true, force: true });
});

// Each of these starts (or restarts) a second stack beside the shared e2e one, on 2 cores with the unit tests running:
// minutes, not the default three.
const STACK_START_MS = 420_000;

describe('imports into a kept n8n', () => {
  it(
    'first start: imports everything and activates the triggered workflows',
    async () => {
      stack = await startStack(options('one'));
      expect(stack.imports.importedWorkflows.sort()).toEqual([RECALL, MODELS].sort());
      expect(stack.imports.writtenCredentials).toEqual([
        { id: 'importTestCred01', name: 'Import Test Header', created: true },
      ]);
      expect((await stack.api<ApiWorkflow>(`/workflows/${MODELS}`)).active).toBe(true);
    },
    STACK_START_MS,
  );

  it(
    'a restart keeps the operator’s edit and switch-off, and rewrites only a changed credential',
    async () => {
      // The operator moves a node and renames the workflow in the editor, and switches the webhook workflow off.
      const recall = await stack!.api<ApiWorkflow>(`/workflows/${RECALL}`);
      recall.nodes[0].position = [recall.nodes[0].position[0] + 400, recall.nodes[0].position[1]];
      await stack!.api(`/workflows/${RECALL}`, {
        method: 'PUT',
        body: { name: `${recall.name} (mine)`, nodes: recall.nodes, connections: recall.connections, settings: {} },
      });
      await stack!.api(`/workflows/${MODELS}/deactivate`, { method: 'POST' });
      await stack!.stop();

      stack = await startStack(options('two'));
      expect(stack.imports.importedWorkflows).toEqual([]);
      expect(stack.imports.unchangedWorkflows.sort()).toEqual([RECALL, MODELS].sort());
      expect(stack.imports.writtenCredentials).toEqual([
        { id: 'importTestCred01', name: 'Import Test Header', created: false },
      ]);
      expect((await stack.api<ApiWorkflow>(`/workflows/${RECALL}`)).name).toMatch(/\(mine\)$/);
      expect((await stack.api<ApiWorkflow>(`/workflows/${MODELS}`)).active).toBe(false);
    },
    STACK_START_MS,
  );

  it(
    'a newer version replaces the installed one, keeping an edited one as an inactive copy first',
    async () => {
      await stack!.stop();
      raiseVersion(RECALL);
      raiseVersion(MODELS);
      stack = await startStack(options('two'));
      expect(stack.imports.importedWorkflows.sort()).toEqual([RECALL, MODELS].sort());
      expect(stack.imports.writtenCredentials).toEqual([]);
      expect(stack.imports.keptCopies).toHaveLength(1);
      const [copy] = stack.imports.keptCopies;
      expect(copy).toMatchObject({
        of: RECALL,
        name: expect.stringMatching(/\(mine\) \(your edit, kept \d{4}-\d\d-\d\d \d\d:\d\d\)$/),
      });
      const kept = await stack.api<ApiWorkflow>(`/workflows/${copy.id}`);
      expect(kept.active).toBe(false);
      const shipped = JSON.parse(readFileSync(fileOf(RECALL), 'utf8'));
      expect((await stack.api<ApiWorkflow>(`/workflows/${RECALL}`)).name).toBe(shipped.name);
      // The webhook workflow was not edited (only switched off): replaced without a copy, and on again.
      expect((await stack.api<ApiWorkflow>(`/workflows/${MODELS}`)).active).toBe(true);
    },
    STACK_START_MS,
  );
});

describe("the container's import script (docker-compose.yml)", () => {
  it('imports through the real n8n CLI and lists what to switch on, then imports nothing on a second run', async () => {
    await stack?.stop();
    stack = undefined;
    await createDatabase(postgres.url, 'compose_import');
    const bin = path.join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'n8n'), `#!/bin/sh\nexec "${NODE24}" "${N8N_BIN}" "$@"\n`, { mode: 0o755 });
    const userFolder = path.join(work, 'compose-n8n');
    mkdirSync(userFolder);
    const env = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: userFolder,
      N8N_USER_FOLDER: userFolder,
      N8N_ENCRYPTION_KEY: 'compose-import-test-key',
      DB_TYPE: 'postgresdb',
      DB_POSTGRESDB_HOST: '127.0.0.1',
      DB_POSTGRESDB_PORT: String(postgres.port),
      DB_POSTGRESDB_DATABASE: 'compose_import',
      DB_POSTGRESDB_USER: postgres.user,
      DB_POSTGRESDB_PASSWORD: postgres.password ?? '',
      N8N_DIAGNOSTICS_ENABLED: 'false',
    };
    const runtime = path.join(work, 'runtime');
    cpSync(path.join(__dirname, '..', '..', 'scripts', 'runtime'), runtime, {
      recursive: true,
      filter: (source) => !source.includes('node_modules'),
    });
    const script = path.join(runtime, 'import-into-n8n.js');
    const state = path.join(work, 'compose-state');
    // As docker-compose.yml runs it: the workflows to switch on are listed for assistant-setup (n8n's API).
    const activateList = path.join(work, 'workflows-to-activate.json');
    const run = () =>
      promisify(execFile)(process.execPath, [script, runtime, workflowsDir, state], {
        env: { ...env, IMPORT_ACTIVATE_LIST: activateList },
      });
    const first = await run();
    const templates = ['credentials', 'credentials-compose'].flatMap((dir) =>
      readdirSync(path.join(runtime, dir)).filter((file) => file.endsWith('.json')),
    );
    expect(first.stdout).toContain(
      `import: 2 workflow(s) imported, 0 unchanged, 0 edit(s) kept as copies, ${templates.length} credential(s) written`,
    );
    expect(first.stdout).toContain('credential "Assistant n8n API": created');
    // Both have a trigger (a webhook, a sub-workflow trigger): listed, not published by the CLI.
    expect(JSON.parse(readFileSync(activateList, 'utf8')).sort()).toEqual([MODELS, RECALL].sort());
    const second = await run();
    expect(second.stdout).toMatch(
      /import: 0 workflow\(s\) imported, 2 unchanged, 0 edit\(s\) kept as copies, 0 credential\(s\) written/,
    );
    expect(JSON.parse(readFileSync(activateList, 'utf8')).sort()).toEqual([MODELS, RECALL].sort());
  });
});
