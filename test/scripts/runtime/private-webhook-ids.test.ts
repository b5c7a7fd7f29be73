// The Telegram Trigger's private ids (scripts/runtime/private-webhook-ids.js): n8n derives the trigger's webhook
// secret from the workflow and node ids, so the committed ids must never reach n8n.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  needsPrivateIds,
  readPrivateWebhookIds,
  withPrivateWebhookIds,
  writePrivateWebhookIds,
  type PrivateWebhookIds,
  type WorkflowJson,
} from '../../../scripts/runtime/private-webhook-ids';
import { WORKFLOWS_DIR } from '../../../scripts/runtime/stack';

const telegramEntry = JSON.parse(
  readFileSync(path.join(WORKFLOWS_DIR, 'assistant-telegram.json'), 'utf8'),
) as WorkflowJson;
const committedTrigger = telegramEntry.nodes.find((node) => node.type === 'n8n-nodes-base.telegramTrigger')!;
const folder = mkdtempSync(path.join(tmpdir(), 'private-ids-'));

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('private webhook ids', () => {
  it('gives only the Telegram Trigger new random ids, leaving every other node and the connections as committed', () => {
    expect(needsPrivateIds(telegramEntry)).toBe(true);
    const ids: PrivateWebhookIds = {};
    const rewritten = withPrivateWebhookIds(telegramEntry, ids);
    const trigger = rewritten.nodes.find((node) => node.type === 'n8n-nodes-base.telegramTrigger')!;
    expect(trigger.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(trigger.webhookId).toMatch(/^[0-9a-f-]{36}$/);
    expect(trigger.id).not.toBe(committedTrigger.id);
    expect(trigger.webhookId).not.toBe(committedTrigger.webhookId);
    expect(trigger.id).not.toBe(trigger.webhookId);
    expect({ ...trigger, id: committedTrigger.id, webhookId: committedTrigger.webhookId }).toEqual(committedTrigger);
    expect(rewritten.nodes.filter((node) => node !== trigger)).toEqual(
      telegramEntry.nodes.filter((node) => node !== committedTrigger),
    );
    expect(rewritten.connections).toEqual(telegramEntry.connections);
    expect(ids).toEqual({
      [`${telegramEntry.id}:${committedTrigger.id}`]: { id: trigger.id, webhookId: trigger.webhookId },
    });
    // The input is not changed.
    expect(telegramEntry.nodes).toContain(committedTrigger);
  });

  it('keeps the ids of an installation stable, and differs between installations', () => {
    const mine: PrivateWebhookIds = {};
    const first = withPrivateWebhookIds(telegramEntry, mine);
    expect(withPrivateWebhookIds(telegramEntry, mine)).toEqual(first);
    const other = withPrivateWebhookIds(telegramEntry, {});
    expect(other.nodes).not.toEqual(first.nodes);
  });

  it('leaves workflows without such a trigger alone', () => {
    const agent = JSON.parse(readFileSync(path.join(WORKFLOWS_DIR, 'assistant-agent.json'), 'utf8')) as WorkflowJson;
    expect(needsPrivateIds(agent)).toBe(false);
    const ids: PrivateWebhookIds = {};
    expect(withPrivateWebhookIds(agent, ids)).toEqual(agent);
    expect(ids).toEqual({});
  });

  it('refuses a trigger without a committed node id, naming the node', () => {
    const broken = {
      id: 'x'.repeat(16),
      nodes: [{ name: 'Telegram Trigger', type: 'n8n-nodes-base.telegramTrigger' }],
    };
    expect(() => withPrivateWebhookIds(broken, {})).toThrow(/node "Telegram Trigger" needs a fixed "id"/);
  });

  it('stores the ids in a file only its owner can read, and refuses a damaged one naming it', () => {
    const file = path.join(folder, 'ids.json');
    expect(readPrivateWebhookIds(file)).toEqual({});
    expect(readPrivateWebhookIds(undefined)).toEqual({});
    const ids: PrivateWebhookIds = {};
    withPrivateWebhookIds(telegramEntry, ids);
    writePrivateWebhookIds(file, ids);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readPrivateWebhookIds(file)).toEqual(ids);
    writeFileSync(file, '{"a": 1}');
    expect(() => readPrivateWebhookIds(file)).toThrow(new RegExp(`${file}: expected`));
    writeFileSync(file, 'not json');
    expect(() => readPrivateWebhookIds(file)).toThrow(new RegExp(`${file}: not valid JSON`));
  });
});
