// The container's import step (docker-compose.yml's n8n-import service), with the same rules as the local runtime
// (importer.js): credentials once (rewritten when their settings change), workflows when missing or newer, an
// operator's edit kept as a copy, Telegram Triggers with this installation's private ids; then it publishes the
// workflows it imported that have a trigger, but those named in IMPORT_PUBLISH_SKIP (comma-separated ids: the
// Telegram entry, switched on by assistant-setup only when a bot is set up), or lists them in IMPORT_ACTIVATE_LIST. Credentials come from credentials/ and,
// for Docker only, credentials-compose/ (the "n8n API" credential, its key written by assistant-setup). Uses the
// `n8n` command on PATH.
//   node import-into-n8n.js <runtime dir> <workflows dir> <state dir>
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose (see importer.js) */
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { loadCredentialTemplates } = require('./credential-templates');
const { syncIntoN8n } = require('./importer');
const {
  needsPrivateIds,
  readPrivateWebhookIds,
  withPrivateWebhookIds,
  writePrivateWebhookIds,
} = require('./private-webhook-ids');
const { readWorkflowFiles } = require('./workflow-files');

const runCli = (args) =>
  new Promise((resolve, reject) =>
    execFile('n8n', args, { maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`n8n ${args[0]} failed: ${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
    ),
  );

async function main([runtimeDir, workflowsDir, stateDir]) {
  if (!runtimeDir || !workflowsDir || !stateDir)
    throw new Error('usage: node import-into-n8n.js <runtime dir> <workflows dir> <state dir>');
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const idsFile = path.join(stateDir, 'private-webhook-ids.json');
  const ids = readPrivateWebhookIds(idsFile);
  const workflows = readWorkflowFiles([workflowsDir]);
  const shipped = workflows.map((w) => {
    const json = JSON.parse(fs.readFileSync(w.file, 'utf8'));
    return { id: w.id, file: w.file, json: needsPrivateIds(json) ? withPrivateWebhookIds(json, ids) : json };
  });
  writePrivateWebhookIds(idsFile, ids);
  const result = await syncIntoN8n({
    workflows: shipped,
    credentials: loadCredentialTemplates(
      [path.join(runtimeDir, 'credentials'), path.join(runtimeDir, 'credentials-compose')],
      process.env,
    ),
    stateFile: path.join(stateDir, 'import-state.json'),
    hashKey: process.env.N8N_ENCRYPTION_KEY,
    runCli,
    stagingDir: stateDir,
    log: (line) => console.log(line),
  });
  // Switching on through the CLI starts a whole n8n per workflow (seconds each): with IMPORT_ACTIVATE_LIST the ids
  // are written there instead, for assistant-setup to switch on through the public API once n8n runs.
  const skip = new Set((process.env.IMPORT_PUBLISH_SKIP ?? '').split(',').map((id) => id.trim()));
  const toActivate = workflows
    .filter((w) => w.triggered && !skip.has(w.id) && result.importedWorkflows.includes(w.id))
    .map((w) => w.id);
  const listFile = process.env.IMPORT_ACTIVATE_LIST;
  if (listFile) {
    const earlier = fs.existsSync(listFile) ? JSON.parse(fs.readFileSync(listFile, 'utf8')) : [];
    fs.writeFileSync(listFile, JSON.stringify([...new Set([...earlier, ...toActivate])]) + '\n');
  } else {
    for (const id of toActivate) await runCli(['publish:workflow', `--id=${id}`]);
  }
  console.log(
    `import: ${result.importedWorkflows.length} workflow(s) imported, ${result.unchangedWorkflows.length} unchanged, ` +
      `${result.keptCopies.length} edit(s) kept as copies, ${result.writtenCredentials.length} credential(s) written`,
  );
}

main(process.argv.slice(2)).catch((error) => {
  console.error(`import: ${error.message}`);
  process.exit(1);
});
