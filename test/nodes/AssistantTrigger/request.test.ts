// The Assistant Trigger decides before any execution exists: the key (401 missing, 403 wrong), the size (413), the
// body (400 naming the field); accepted calls carry the request's fields and never the headers. The outbox endpoint
// and the turn endpoint (GET) check the key and the query; the receipts endpoint (POST) the key, the size and the body;
// a callback_url the outbound guard refuses is a 400 naming it.
import { describe, expect, it } from 'vitest';

import { AssistantTrigger } from '../../../nodes/AssistantTrigger/AssistantTrigger.node';
import {
  admit,
  admitOutbox,
  admitReceipts,
  admitTurn,
  MAX_BODY_BYTES,
  refusedCallbackUrl,
} from '../../../nodes/AssistantTrigger/v1/helpers/request';
import { nodeVersion } from '../helpers/executeFunctions';

const credential = { name: 'X-API-Key', value: 'k3y' };
const body = { message: 'Hello', user_id: 'me' };

describe('Assistant Trigger', () => {
  it('is a webhook trigger (POST messages, GET outbox and turn) answered by a Respond to Webhook node, on Header Auth', () => {
    const { description } = nodeVersion(new AssistantTrigger());
    expect(description.inputs).toEqual([]);
    expect(description.webhooks).toEqual([
      expect.objectContaining({
        httpMethod: '={{ ["message", "receipts"].includes($parameter["endpoint"]) ? "POST" : "GET" }}',
        responseMode: 'responseNode',
        isFullPath: true,
      }),
    ]);
    expect(description.properties.find((p) => p.name === 'endpoint')?.default).toBe('message');
    expect(description.credentials).toEqual([{ name: 'httpHeaderAuth', required: true }]);
  });

  it('refuses a missing or wrong key, an oversized body and a bad body, in the assistant envelope', () => {
    expect(admit({ headers: {}, body }, credential)).toMatchObject({ statusCode: 401 });
    expect(admit({ headers: { 'x-api-key': 'nope' }, body }, credential)).toMatchObject({ statusCode: 403 });
    const huge = { 'x-api-key': 'k3y', 'content-length': String(MAX_BODY_BYTES + 1) };
    expect(admit({ headers: huge, body }, credential)).toMatchObject({
      statusCode: 413,
      body: { error: { code: 'body_too_large', field: 'body' } },
    });
    expect(admit({ headers: { 'x-api-key': 'k3y' }, body: { user_id: 'me' } }, credential)).toMatchObject({
      statusCode: 400,
      body: { error: { field: 'message' } },
    });
  });

  it('admits a good call as the request fields only', () => {
    const admitted = admit(
      { headers: { 'x-api-key': 'k3y', cookie: 'secret' }, body: { ...body, reply_to: 'q1' } },
      credential,
    );
    expect(admitted).toEqual({
      channel: 'api',
      externalId: 'me',
      message: 'Hello',
      sessionId: 'default',
      metadata: {},
      replyTo: 'q1',
    });
  });

  it('the outbox endpoint: key first, then the query, naming the bad parameter', () => {
    expect(admitOutbox({ headers: {}, query: { user_id: 'me' } }, credential)).toMatchObject({ statusCode: 401 });
    const headers = { 'x-api-key': 'k3y' };
    expect(admitOutbox({ headers, query: { user_id: 'me' } }, credential)).toEqual({
      externalId: 'me',
      after: '0',
      limit: '100',
    });
    expect(admitOutbox({ headers, query: { user_id: 'me', after: '-3' } }, credential)).toMatchObject({
      statusCode: 400,
      body: { error: { field: 'after' } },
    });
    expect(admitOutbox({ headers, query: {} }, credential)).toMatchObject({ body: { error: { field: 'user_id' } } });
    expect(admitOutbox({ headers, query: { user_id: 'me', page: '2' } }, credential)).toMatchObject({
      body: { error: { field: 'page' } },
    });
  });

  it('the turn endpoint: key first, then user_id and turn_id', () => {
    expect(admitTurn({ headers: {}, query: { user_id: 'me', turn_id: '7' } }, credential)).toMatchObject({
      statusCode: 401,
    });
    const headers = { 'x-api-key': 'k3y' };
    expect(admitTurn({ headers, query: { user_id: 'me', turn_id: '7' } }, credential)).toEqual({
      externalId: 'me',
      turnId: '7',
    });
    expect(admitTurn({ headers, query: { user_id: 'me' } }, credential)).toMatchObject({
      statusCode: 400,
      body: { error: { field: 'turn_id' } },
    });
  });

  it('a callback_url: malformed → 400; refused by the guard → 400 naming callback_url; allowed → passed on', async () => {
    const headers = { 'x-api-key': 'k3y' };
    expect(admit({ headers, body: { ...body, callback_url: 'ftp://x' } }, credential)).toMatchObject({
      statusCode: 400,
      body: { error: { field: 'callback_url' } },
    });
    const admitted = admit({ headers, body: { ...body, callback_url: 'https://example.com/hook' } }, credential);
    expect(admitted).toMatchObject({ callbackUrl: 'https://example.com/hook' });
    const refuse = async () => ({ allowed: false, reason: 'it resolves to a private address' });
    expect(await refusedCallbackUrl('https://example.com/hook', refuse)).toMatchObject({
      statusCode: 400,
      body: { error: { field: 'callback_url', message: 'callback_url: it resolves to a private address' } },
    });
    expect(await refusedCallbackUrl('https://example.com/hook', async () => ({ allowed: true }))).toBeNull();
    expect(await refusedCallbackUrl(undefined, refuse)).toBeNull();
  });

  it('the receipts endpoint: key first, then the size, then the body naming its bad field; never the headers', () => {
    const receipt = { user_id: 'owner', channel: 'web', shown: [7, 8] };
    expect(admitReceipts({ headers: {}, body: receipt }, credential)).toMatchObject({ statusCode: 401 });
    expect(admitReceipts({ headers: { 'x-api-key': 'nope' }, body: receipt }, credential)).toMatchObject({
      statusCode: 403,
    });
    const headers = { 'x-api-key': 'k3y' };
    expect(admitReceipts({ headers, body: receipt }, credential)).toEqual({
      externalId: 'owner',
      channel: 'web',
      ids: [7, 8],
    });
    expect(
      admitReceipts({ headers: { ...headers, 'content-length': '64001' }, body: receipt }, credential),
    ).toMatchObject({ statusCode: 413 });
    expect(admitReceipts({ headers, body: { ...receipt, channel: 'telegram' } }, credential)).toMatchObject({
      statusCode: 400,
      body: { error: { field: 'channel' } },
    });
  });
});
