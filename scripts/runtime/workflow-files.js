// Workflow files (workflows/*.json): fixed 16-character ids, and which ones have a trigger (so can be activated).
// They come in activation order: a workflow after the sub-workflows it calls (n8n publishes a workflow only when
// every workflow it references is published).
// Plain CommonJS so that the TypeScript runtime and a bare `node` (docker-compose.yml) share it; types: *.d.ts.
//
// CLI: node workflow-files.js triggered <dir>...   prints the ids of the workflows with a trigger, one a line
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose (see above) */
const fs = require('node:fs');
const path = require('node:path');

/** A node that starts a workflow by itself (not the editor's manual trigger). */
function isActivatableTrigger(nodeType) {
  // The manual trigger runs from the editor; an error workflow's Error Trigger runs when another workflow fails.
  if (nodeType === 'n8n-nodes-base.manualTrigger' || nodeType === 'n8n-nodes-base.errorTrigger') return false;
  return /trigger$/i.test(nodeType) || nodeType === 'n8n-nodes-base.webhook';
}

/** Reads every workflow file of the folders, checking the fields the runtime relies on. */
function readWorkflowFiles(dirs) {
  const workflows = [];
  const seen = new Map();
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const file = path.join(dir, name);
      let json;
      try {
        json = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (error) {
        throw new Error(`${file}: not valid JSON (${error.message})`);
      }
      if (typeof json.id !== 'string' || !/^[A-Za-z0-9]{16}$/.test(json.id)) {
        throw new Error(`${file}: field "id" must be a fixed 16-character alphanumeric id`);
      }
      if (typeof json.name !== 'string' || json.name.trim() === '') {
        throw new Error(`${file}: field "name" must be a non-empty string`);
      }
      if (!Array.isArray(json.nodes)) throw new Error(`${file}: field "nodes" must be an array`);
      const earlier = seen.get(json.id);
      if (earlier) throw new Error(`${file}: workflow id "${json.id}" is also used by ${earlier}`);
      seen.set(json.id, file);
      const triggered = json.nodes.some((node) => typeof node?.type === 'string' && isActivatableTrigger(node.type));
      workflows.push({ id: json.id, name: json.name, file, triggered, active: false, calls: calledWorkflowIds(json) });
    }
  }
  return inActivationOrder(workflows);
}

/** The ids of the workflows a workflow's nodes call (Execute Workflow, workflow tools): `workflowId` parameters. */
function calledWorkflowIds(json) {
  const ids = new Set();
  for (const node of json.nodes) {
    const ref = node?.parameters?.workflowId;
    const id = typeof ref === 'string' ? ref : ref?.value;
    if (typeof id === 'string' && /^[A-Za-z0-9]{16}$/.test(id) && id !== json.id) ids.add(id);
  }
  return [...ids];
}

/** Depth first: each workflow after the ones it calls (a call cycle keeps file order). */
function inActivationOrder(workflows) {
  const byId = new Map(workflows.map((w) => [w.id, w]));
  const ordered = [];
  const state = new Map();
  const visit = (workflow) => {
    if (state.has(workflow.id)) return;
    state.set(workflow.id, 'visiting');
    for (const id of workflow.calls) if (byId.has(id)) visit(byId.get(id));
    state.set(workflow.id, 'done');
    ordered.push(workflow);
  };
  for (const workflow of workflows) visit(workflow);
  return ordered;
}

module.exports = { isActivatableTrigger, readWorkflowFiles };

if (require.main === module) {
  const [command, ...dirs] = process.argv.slice(2);
  if (command !== 'triggered' || dirs.length === 0) {
    process.stderr.write('usage: node workflow-files.js triggered <dir>...\n');
    process.exit(2);
  }
  try {
    for (const workflow of readWorkflowFiles(dirs)) if (workflow.triggered) process.stdout.write(`${workflow.id}\n`);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
