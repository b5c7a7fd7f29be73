// Brings the repo's credentials and workflows into an n8n without overwriting what the operator changed there.
//   Workflows carry an integer `meta.version`. One is imported when it is missing, or when the repo's version is
//   higher than the one installed. Before an installed workflow is replaced, its current form (exported from n8n) is
//   compared with what was imported: when the operator edited it, the edit is kept as an inactive copy, and said so.
//   Credentials are created once and rewritten only when their rendered settings (the operator's answers) changed.
// What was imported is recorded in a state file (versions, and keyed hashes: never a secret in clear).
// Plain CommonJS so that the TypeScript runtime and a bare `node` in the n8n container (docker-compose.yml) share it.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose (see above) */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const STATE_FORMAT = 2;

/** The workflow file's version: a positive integer in `meta.version`. */
function workflowVersion(json, file) {
  const version = json && json.meta ? json.meta.version : undefined;
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new Error(`${file}: "meta.version" must be a positive integer (raise it when the workflow changes)`);
  }
  return version;
}

const sortKeys = (value) =>
  Array.isArray(value)
    ? value.map(sortKeys)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, sortKeys(value[key])]),
        )
      : value;

/**
 * What the operator can change in the editor, independent of how n8n stores it: nodes (without their ids and
 * webhook ids, which the runtime may make private), connections, settings and the name.
 */
function editableForm(workflow) {
  const nodes = (workflow.nodes || [])
    .map((node) => {
      const { id: _id, webhookId: _webhookId, ...rest } = node;
      return rest;
    })
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
  return sortKeys({
    name: workflow.name,
    nodes,
    connections: workflow.connections || {},
    settings: workflow.settings || {},
  });
}

const keyedHash = (key, value) =>
  crypto
    .createHmac('sha256', key || 'judge-assistant-import')
    .update(JSON.stringify(value))
    .digest('hex');

function readState(file) {
  if (!file || !fs.existsSync(file)) return { format: STATE_FORMAT, workflows: {}, credentials: {} };
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (raw && raw.format === STATE_FORMAT) return raw;
  // Format 1 (before versions): { <workflow id>: <file hash> }. Those count as version 0 with an unknown form.
  const workflows = {};
  for (const id of Object.keys(raw || {})) workflows[id] = { version: 0, hash: null };
  return { format: STATE_FORMAT, workflows, credentials: {} };
}

function writeState(file, state) {
  if (!file) return;
  const temporary = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(temporary, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(temporary, file);
}

const randomId = () => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(crypto.randomBytes(16), (byte) => alphabet[byte % alphabet.length]).join('');
};

/**
 * @param {object} options
 * @param {Array<{id: string, file: string, json: object}>} options.workflows what the repo ships (already with any
 *   per-installation changes applied, e.g. private webhook ids)
 * @param {Array<{id: string, name: string, type: string, data: object}>} options.credentials rendered credentials
 * @param {string} [options.stateFile] the record; without one everything is imported (a fresh, throw-away n8n)
 * @param {string} [options.hashKey] keys the recorded hashes (e.g. n8n's encryption key)
 * @param {(args: string[]) => Promise<unknown>} options.runCli runs an n8n CLI command
 * @param {string} options.stagingDir a private folder for the files handed to the CLI (removed after)
 * @param {(line: string) => void} [options.log]
 * @param {Date} [options.now]
 */
async function syncIntoN8n(options) {
  const log = options.log || (() => undefined);
  const now = options.now || new Date();
  const state = options.stateFile ? readState(options.stateFile) : undefined;
  const staging = fs.mkdtempSync(path.join(options.stagingDir, 'import-'));
  const result = { importedWorkflows: [], keptCopies: [], unchangedWorkflows: [], writtenCredentials: [] };
  try {
    // Credentials: created once, rewritten when their rendered settings changed.
    const credentialHash = (c) => keyedHash(options.hashKey, { type: c.type, name: c.name, data: c.data });
    const credentials = options.credentials.filter((c) => !state || state.credentials[c.id] !== credentialHash(c));
    if (credentials.length > 0) {
      const file = path.join(staging, 'credentials.json');
      fs.writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
      try {
        await options.runCli(['import:credentials', `--input=${file}`]);
      } finally {
        fs.rmSync(file, { force: true });
      }
      for (const c of credentials) {
        const before = state && state.credentials[c.id];
        if (state) state.credentials[c.id] = credentialHash(c);
        result.writtenCredentials.push({ id: c.id, name: c.name, created: !before });
        log(`credential "${c.name}": ${before ? 'rewritten (its settings changed)' : 'created'}`);
      }
      writeState(options.stateFile, state);
    }

    // Workflows: missing or newer in the repo.
    const wanted = [];
    for (const w of options.workflows) {
      const version = workflowVersion(w.json, w.file);
      const installed = state && state.workflows[w.id];
      if (!installed) wanted.push({ w, version, replaces: undefined });
      else if (version > installed.version) wanted.push({ w, version, replaces: installed });
      else result.unchangedWorkflows.push(w.id);
    }
    const replacing = wanted.filter((item) => item.replaces);
    if (replacing.length > 0) {
      // The installed forms, to see whether the operator edited them since they were imported.
      const exported = await exportAll(options, staging);
      const copies = [];
      for (const item of replacing) {
        const current = exported.get(item.w.id);
        if (!current) continue; // deleted in the editor: the new version is simply imported
        const currentHash = keyedHash(options.hashKey, editableForm(current));
        // An entry from before versions has no recorded form: only an installed form equal to the new one is safe.
        const edited =
          item.replaces.hash === null
            ? currentHash !== keyedHash(options.hashKey, editableForm(item.w.json))
            : currentHash !== item.replaces.hash;
        if (!edited) continue;
        const stamp = now.toISOString().slice(0, 16).replace('T', ' ');
        const copy = { ...current, id: randomId(), name: `${current.name} (your edit, kept ${stamp})`, active: false };
        delete copy.versionId;
        delete copy.activeVersionId;
        copies.push(copy);
        result.keptCopies.push({ of: item.w.id, id: copy.id, name: copy.name });
        log(
          `workflow "${current.name}" was edited in n8n: kept as "${copy.name}" (${copy.id}, inactive) before ` +
            `installing version ${item.version}`,
        );
      }
      if (copies.length > 0) await importWorkflowFiles(options, staging, 'copies', copies);
    }
    if (wanted.length > 0) {
      await importWorkflowFiles(
        options,
        staging,
        'workflows',
        wanted.map((item) => item.w.json),
      );
      for (const item of wanted) result.importedWorkflows.push(item.w.id);
      if (state) {
        const exported = await exportAll(options, staging);
        for (const item of wanted) {
          const current = exported.get(item.w.id);
          state.workflows[item.w.id] = {
            version: item.version,
            hash: current ? keyedHash(options.hashKey, editableForm(current)) : null,
            importedAt: now.toISOString(),
          };
        }
        writeState(options.stateFile, state);
      }
      log(`imported ${wanted.length} workflow(s)${state ? ' (new, or a newer version in the repo)' : ''}`);
    }
    return result;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

async function importWorkflowFiles(options, staging, name, workflows) {
  const dir = path.join(staging, name);
  fs.mkdirSync(dir, { mode: 0o700 });
  for (const json of workflows)
    fs.writeFileSync(path.join(dir, `${json.id}.json`), JSON.stringify(json), { mode: 0o600 });
  try {
    await options.runCli(['import:workflow', '--separate', `--input=${dir}`]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Every workflow n8n holds, by id (an empty n8n exports none: its CLI then says so, which is not an error here). */
async function exportAll(options, staging) {
  const dir = path.join(staging, `export-${crypto.randomBytes(4).toString('hex')}`);
  fs.mkdirSync(dir, { mode: 0o700 });
  const byId = new Map();
  try {
    await options.runCli(['export:workflow', '--all', '--separate', `--output=${dir}${path.sep}`]).catch((error) => {
      if (!/No workflows found/.test(String(error && error.message))) throw error;
    });
    for (const file of fs.readdirSync(dir)) {
      const json = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
      byId.set(json.id, json);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return byId;
}

module.exports = { syncIntoN8n, editableForm, workflowVersion, readState, STATE_FORMAT };
