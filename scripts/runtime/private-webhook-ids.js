// Per-installation node ids for triggers whose webhook secret n8n derives from ids that are public in this repo.
//
// n8n 2.41.1's Telegram Trigger registers its webhook at /webhook/<webhookId>/webhook with the secret token
// `<workflow id>_<node id>` (nodes-base Telegram/GenericFunctions getSecretToken) and checks every update against
// it. Both ids are committed in workflows/, so anyone reaching n8n could forge an owner's update. Before import,
// such nodes get a random node id and webhookId, kept per installation (so re-imports keep the registered webhook)
// in a state file of mode 600. Plain CommonJS like workflow-files.js; types: private-webhook-ids.d.ts.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose (see above) */
const crypto = require('node:crypto');
const fs = require('node:fs');

/** Node types whose webhook secret is derived from the workflow and node ids. */
const SECRET_FROM_IDS_NODE_TYPES = new Set(['n8n-nodes-base.telegramTrigger']);

function needsPrivateIds(workflow) {
  return Array.isArray(workflow.nodes) && workflow.nodes.some((node) => SECRET_FROM_IDS_NODE_TYPES.has(node?.type));
}

/**
 * A copy of the workflow whose secret-from-ids nodes carry private ids. `ids` maps "<workflow id>:<committed node
 * id>" to {id, webhookId}; missing entries are created (random UUIDs) and added to it.
 */
function withPrivateWebhookIds(workflow, ids) {
  const nodes = workflow.nodes.map((node) => {
    if (!SECRET_FROM_IDS_NODE_TYPES.has(node?.type)) return node;
    if (typeof node.id !== 'string' || node.id === '') {
      throw new Error(`workflow ${workflow.id}: node "${node.name}" needs a fixed "id" to keep its private id stable`);
    }
    const key = `${workflow.id}:${node.id}`;
    if (!ids[key]) ids[key] = { id: crypto.randomUUID(), webhookId: crypto.randomUUID() };
    return { ...node, id: ids[key].id, webhookId: ids[key].webhookId };
  });
  return { ...workflow, nodes };
}

/** The stored ids, or none yet. A damaged file is an error naming it (new ids would silently re-key the bot). */
function readPrivateWebhookIds(file) {
  if (!file || !fs.existsSync(file)) return {};
  let ids;
  try {
    ids = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${error.message}); delete it to give the triggers new private ids`);
  }
  const valid =
    ids &&
    typeof ids === 'object' &&
    !Array.isArray(ids) &&
    Object.values(ids).every((entry) => typeof entry?.id === 'string' && typeof entry?.webhookId === 'string');
  if (!valid)
    throw new Error(
      `${file}: expected {"<workflow>:<node>": {"id", "webhookId"}}; delete it to give the triggers new private ids`,
    );
  return ids;
}

function writePrivateWebhookIds(file, ids) {
  fs.writeFileSync(file, JSON.stringify(ids, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

module.exports = {
  SECRET_FROM_IDS_NODE_TYPES,
  needsPrivateIds,
  withPrivateWebhookIds,
  readPrivateWebhookIds,
  writePrivateWebhookIds,
};
