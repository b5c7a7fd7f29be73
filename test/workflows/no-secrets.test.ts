// No secret in any workflow JSON under workflows/: credentials are referenced by id and name only, and no value
// looks like a key, token, password or a connection string with a password. The scanner is checked on planted
// secrets too, so this test can fail.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSecrets } from './find-secrets';

const WORKFLOWS_DIR = path.join(__dirname, '..', '..', 'workflows');

const files = readdirSync(WORKFLOWS_DIR).filter((file) => file.endsWith('.json'));

describe('workflows/ holds no secrets', () => {
  it('has workflows to scan', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s', (file) => {
    const workflow = JSON.parse(readFileSync(path.join(WORKFLOWS_DIR, file), 'utf8'));
    expect(findSecrets(workflow)).toEqual([]);
    expect(workflow.id).toMatch(/^[A-Za-z0-9]{16}$/);
  });

  it('finds planted secrets (the scanner can fail)', () => {
    const planted = {
      nodes: [
        { name: 'a', parameters: { headerParameters: { value: 'hunter2hunter2' } } },
        {
          name: 'b',
          parameters: { url: 'postgres://admin:pa55word@db:5432/x', text: 'key sk-abcdefghijklmnopqrstuv' },
        },
        {
          name: 'c',
          parameters: { text: '123456789:AAE1234567890abcdefghijklmnopqrstuv' },
          credentials: { telegramApi: { id: 'x', name: 'y', accessToken: 'z' } },
        },
      ],
    };
    const findings = findSecrets(planted);
    expect(findings.join('\n')).toMatch(/literal value under "value"/);
    expect(findings.join('\n')).toMatch(/connection string with password/);
    expect(findings.join('\n')).toMatch(/OpenAI-style key/);
    expect(findings.join('\n')).toMatch(/Telegram bot token/);
    expect(findings.join('\n')).toMatch(/must hold only \{id, name\}/);
    expect(
      findSecrets({
        nodes: [
          {
            name: 'ok',
            parameters: { value: '={{ $json.token }}' },
            credentials: { postgres: { id: 'a', name: 'b' } },
          },
        ],
      }),
    ).toEqual([]);
  });
});
