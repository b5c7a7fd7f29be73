// The Assistant Trigger decides before any execution exists: the key (401 missing, 403 wrong), the size (413), the
// body (400 naming the field); accepted calls carry the request's fields and never the headers.
import { describe, expect, it } from 'vitest';

import { AssistantTrigger } from '../../../nodes/AssistantTrigger/AssistantTrigger.node';
import { admit, MAX_BODY_BYTES } from '../../../nodes/AssistantTrigger/v1/helpers/request';
import { nodeVersion } from '../helpers/executeFunctions';

const credential = { name: 'X-API-Key', value: 'k3y' };
const body = { message: 'Hello', user_id: 'me' };

describe('Assistant Trigger', () => {
  it('is a webhook trigger on POST <path> answered by a Respond to Webhook node, on the Header Auth credential', () => {
    const { description } = nodeVersion(new AssistantTrigger());
    expect(description.inputs).toEqual([]);
    expect(description.webhooks).toEqual([
      expect.objectContaining({ httpMethod: 'POST', responseMode: 'responseNode', isFullPath: true }),
    ]);
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
});
