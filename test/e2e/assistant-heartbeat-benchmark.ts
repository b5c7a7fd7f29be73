// Benchmark: the heartbeat's real interval, read from its run ledger, on the real n8n + Postgres 17 with the default
// settings (a one-minute Schedule Trigger, heartbeatIntervalSeconds 300). Not part of the test suite.
//   npm run build && npx tsx test/e2e/assistant-heartbeat-benchmark.ts [--minutes 30]
// Prints every heartbeat with its distance to the previous one, the ticks per minute, and the target check:
// every heartbeat within 5 min ± 10 s of the previous one.
import { Pool } from 'pg';
import { listTicks, runMigrations } from 'assistant-core';
import { startStack } from '../../scripts/runtime/stack';
import { freePort, sleep } from '../../scripts/runtime/process';
import { assistantFakes } from '../fakes/assistant-e2e-fakes';
import { postgresCredentialData } from './setup/postgres-credential';

const index = process.argv.indexOf('--minutes');
const minutes = index >= 0 ? Number(process.argv[index + 1]) : 30;
if (!Number.isInteger(minutes) || minutes < 6 || minutes > 600) throw new Error('--minutes must be from 6 to 600');

async function main(): Promise<void> {
  const fakes = await Promise.all(assistantFakes.map((fake) => fake.start()));
  const stack = await startStack({ env: { N8N_RUNNERS_BROKER_PORT: String(await freePort()) } });
  const db = new Pool({ connectionString: stack.postgres.url, max: 2 });
  try {
    await runMigrations(db);
    await stack.api('/credentials/asstPostgresDb01', {
      method: 'PATCH',
      body: {
        data: postgresCredentialData(stack.postgres.url),
      },
    });
    const since = new Date();
    console.log(`waiting ${minutes} min for ticks…`);
    await sleep(minutes * 60_000);
    const ticks = await listTicks(db, since);
    const beats = ticks.filter((t) => t.heartbeat).map((t) => Date.parse(t.startedAt));
    const gaps = beats.slice(1).map((at, i) => (at - beats[i]) / 1000);
    const offsets = ticks.map((t) => Date.parse(t.startedAt) - Date.parse(t.tickAt));
    console.log(`ticks: ${ticks.length} in ${minutes} min; heartbeats: ${beats.length}`);
    console.log(`tick start after its minute: min ${Math.min(...offsets)} ms, max ${Math.max(...offsets)} ms`);
    console.log(`heartbeat intervals (s): ${gaps.map((g) => g.toFixed(1)).join(', ')}`);
    const within = gaps.every((g) => Math.abs(g - 300) <= 10);
    console.log(
      `every interval within 300 ± 10 s: ${within ? 'yes' : 'NO'} (min ${Math.min(...gaps)} s, max ${Math.max(...gaps)} s)`,
    );
  } finally {
    await db.end();
    await stack.stop();
    for (const fake of fakes) await fake.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
