// The Telegram entry's webhook registered again with the self-signed certificate uploaded, against the loopback Bot
// API: the registration n8n's trigger makes, the multipart upload Telegram requires, and clear refusals.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  registerTelegramWebhook,
  requireCertificatePem,
  telegramWebhookRegistration,
  type TelegramEntryWorkflow,
} from '../../src/channel';
import {
  startTelegramBotApiFake,
  TelegramBotApiFakeControl,
  type TelegramBotApiFake,
} from '../../../test/fakes/telegram-bot-api';

const TOKEN = '7000000001:certificate-test-token';

function entry(trigger: Partial<TelegramEntryWorkflow['nodes'][number]> = {}): TelegramEntryWorkflow {
  return {
    id: 'asstTelegramIn01',
    nodes: [
      {
        id: '1b2c3d4e-aaaa-bbbb-cccc-000000000001',
        name: 'On Telegram Message',
        type: 'n8n-nodes-base.telegramTrigger',
        typeVersion: 1.2,
        webhookId: 'f00dbabe-0000-4000-8000-000000000001',
        parameters: { updates: ['message'] },
        ...trigger,
      },
      { id: 'other', name: 'Check', type: 'n8n-nodes-judge-assistant.assistantChannel' },
    ],
  };
}

describe('telegramWebhookRegistration', () => {
  it("derives the URL, secret token and updates as n8n's Telegram Trigger does", () => {
    expect(telegramWebhookRegistration(entry(), 'https://203.0.113.7/')).toEqual({
      url: 'https://203.0.113.7/webhook/f00dbabe-0000-4000-8000-000000000001/webhook',
      secretToken: 'asstTelegramIn01_1b2c3d4e-aaaa-bbbb-cccc-000000000001',
      allowedUpdates: ['message'],
    });
    // A base URL with a path and no trailing slash; version 1.5 adds callback_query; "*" means every update.
    expect(telegramWebhookRegistration(entry({ typeVersion: 1.5 }), 'https://example.com/n8n').url).toBe(
      'https://example.com/n8n/webhook/f00dbabe-0000-4000-8000-000000000001/webhook',
    );
    expect(telegramWebhookRegistration(entry({ typeVersion: 1.5 }), 'https://h/').allowedUpdates).toEqual([
      'message',
      'callback_query',
    ]);
    expect(telegramWebhookRegistration(entry({ parameters: { updates: ['*'] } }), 'https://h/').allowedUpdates).toEqual(
      [],
    );
  });

  it('names what is wrong: no trigger, no webhook id, a base URL that is not http(s)', () => {
    expect(() => telegramWebhookRegistration({ id: 'w', nodes: [] }, 'https://h/')).toThrow(
      /workflow: workflow w has 0 Telegram Triggers/,
    );
    expect(() => telegramWebhookRegistration(entry({ webhookId: undefined }), 'https://h/')).toThrow(
      /no id or webhookId/,
    );
    expect(() => telegramWebhookRegistration(entry(), 'ftp://203.0.113.7/')).toThrow(
      /webhookBaseUrl: "ftp:\/\/203.0.113.7\/" is not an http\(s\) URL/,
    );
    expect(() => telegramWebhookRegistration(entry(), 'not a url')).toThrow(/webhookBaseUrl: "not a url" is not a URL/);
  });
});

describe('registerTelegramWebhook', () => {
  let telegram: TelegramBotApiFake;
  let control: TelegramBotApiFakeControl;
  let certificatePem: string;
  let keyPem: string;

  beforeAll(async () => {
    telegram = await startTelegramBotApiFake({ token: TOKEN });
    control = new TelegramBotApiFakeControl(telegram.url);
    const dir = mkdtempSync(path.join(tmpdir(), 'telegram-cert-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=203.0.113.7',
      '-addext', 'subjectAltName=IP:203.0.113.7',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' }); // prettier-ignore
    certificatePem = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    keyPem = readFileSync(path.join(dir, 'key.pem'), 'utf8');
  });
  afterAll(() => telegram?.close());

  it('uploads the certificate with the same URL, secret token and updates', async () => {
    const registration = telegramWebhookRegistration(entry(), 'https://203.0.113.7/');
    await registerTelegramWebhook({ apiBaseUrl: telegram.url, botToken: TOKEN, registration, certificatePem });
    expect(await control.webhook()).toEqual({
      url: registration.url,
      secret_token: registration.secretToken,
      allowed_updates: ['message'],
      certificate: certificatePem,
    });
    const info = (await (await fetch(`${telegram.url}/bot${TOKEN}/getWebhookInfo`)).json()) as { result: unknown };
    expect(info.result).toMatchObject({ url: registration.url, has_custom_certificate: true });
  });

  it("refuses a private key and a non-certificate before calling Telegram, and passes on Telegram's refusal", async () => {
    const registration = telegramWebhookRegistration(entry(), 'https://203.0.113.7/');
    expect(() => requireCertificatePem(keyPem)).toThrow(/certificate: holds a private key/);
    expect(() => requireCertificatePem('hello')).toThrow(/certificate: is not a PEM certificate/);
    await expect(
      registerTelegramWebhook({ apiBaseUrl: telegram.url, botToken: 'wrong:token', registration, certificatePem }),
    ).rejects.toThrow(/setWebhook: Telegram refused \(401: Unauthorized\)/);
    await expect(
      registerTelegramWebhook({ apiBaseUrl: 'http://127.0.0.1:9', botToken: TOKEN, registration, certificatePem }),
    ).rejects.toThrow(/not reachable/);
  });
});
