// The assistant-setup service of docker-compose.yml (the app image runs `node assistant/dist/setup/main.js <step>`):
//   database   before n8n: the assistant's database created if missing, migrated, the answers stored as settings
//   n8n        once n8n is healthy: the n8n API key and its credential, the Telegram entry (and its certificate)
// Settings come from the environment (compose passes .env's); a bad one is named and the step exits with 1.
import { describeInstanceCaps } from '../budget/instance-caps';
import { describeJobCaps } from '../budget/job-caps';
import { describeUserCaps } from '../budget/user-caps';
import { prepareAssistantDatabase } from './prepare-database';
import { finishN8nSetup } from './finish-n8n';

function required(name: string): string {
  const value = process.env[name]?.trim();
  if (!value) throw new Error(`${name}: not set (docker-compose.yml passes it from .env)`);
  return value;
}

async function database(): Promise<void> {
  const port = Number(process.env.ASSISTANT_PG_PORT ?? '5432');
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error('ASSISTANT_PG_PORT: not a TCP port');
  const prepared = await prepareAssistantDatabase(
    {
      host: required('ASSISTANT_PG_HOST'),
      port,
      user: required('ASSISTANT_PG_USER'),
      password: required('ASSISTANT_PG_PASSWORD'),
      database: required('ASSISTANT_PG_DATABASE'),
    },
    process.env,
  );
  const { migration } = prepared;
  console.log(
    migration.applied.length === 0
      ? `assistant schema is up to date (version ${migration.current})`
      : `assistant schema migrated to version ${migration.current} (applied ${migration.applied.join(', ')})`,
  );
  if (prepared.linkedIdentities.length > 0)
    console.log(`owner: ${prepared.linkedIdentities.join(' and ')} are one user`);
  console.log(`chat model: ${prepared.chatModel}; owner chat: ${prepared.ownerChatId ?? 'not set'}`);
  console.log(describeInstanceCaps(prepared.instanceCaps));
  console.log(describeJobCaps(prepared.jobCaps));
  console.log(describeUserCaps(prepared.userCaps));
}

async function n8n(): Promise<void> {
  const publicUrl = process.env.N8N_PUBLIC_URL?.trim();
  const result = await finishN8nSetup({
    n8nUrl: required('N8N_INTERNAL_URL').replace(/\/+$/, ''),
    owner: { email: required('OWNER_EMAIL'), password: required('OWNER_PASSWORD') },
    apiKeyFile: `${required('ASSISTANT_STATE_DIR')}/n8n-api-key`,
    givenApiKey: process.env.N8N_API_KEY,
    activateListFile: `${required('ASSISTANT_STATE_DIR')}/workflows-to-activate.json`,
    telegram: {
      botToken: process.env.ASSISTANT_TELEGRAM_BOT_TOKEN ?? '',
      apiBaseUrl: process.env.ASSISTANT_TELEGRAM_API_URL?.trim() || 'https://api.telegram.org',
      webhookBaseUrl: publicUrl || undefined,
      certificateFile: process.env.ASSISTANT_WEBHOOK_CERTIFICATE?.trim() || undefined,
    },
    email: {
      configured: Boolean(
        process.env.ASSISTANT_EMAIL_IMAP_HOST?.trim() && process.env.ASSISTANT_EMAIL_SMTP_HOST?.trim(),
      ),
    },
  });
  console.log(
    `n8n API key: ${result.apiKey}; workflows switched on: ${result.activated}; Telegram: ${result.telegram}; email: ${result.email}`,
  );
}

const steps: Record<string, () => Promise<void>> = { database, n8n };
const step = process.argv[2] ?? '';
if (!steps[step]) {
  console.error(`assistant-setup: the step must be one of ${Object.keys(steps).join(', ')}, not "${step}"`);
  process.exit(2);
}
steps[step]().catch((error: Error) => {
  console.error(`assistant-setup ${step}: ${error.message}`);
  process.exit(1);
});
