// The seed's host, measured (issue 38; docs/BENCHMARKS.md, "The seed's host"): the whole Docker stack setup.sh
// started (scripts/bench-host.sh brings it up as the install test does), its memory per service idle and while, at
// the same time, the browser service signs in on a site (user name, password, a one-time code), a check runs (the
// minute tick starts it) and a turn is answered (the chat-model fake on the host); then its disk: images, volumes,
// and after a simulated month (scripts/lib/simulated-month.ts) before and after n8n's pruning. Against the 4 GB RAM
// and 15 GB disk setup.sh names. Not a test: run by hand, under the stack lock.
//   npx tsx scripts/bench-host.ts <compose.env> <compose project> <prefix> <work dir> [--write]
// --write puts the tables into docs/BENCHMARKS.md (the generated part of "The seed's host").
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { addCheck, resolveIdentity } from '../assistant/src';
import { createBrowserClient } from '../assistant/src/browser/client';
import type { SessionPage } from '../assistant/src/browser/protocol';
import { startLoginSite } from '../assistant/test/browser/login-site';
import { forward } from '../docker/test/tcp-forward';
import { parseEnv } from './installer/env-file';
import { projectCgroups, readMemory, resetPeak, sampleMemory, type MemoryWindow } from './lib/container-memory';
import { copyExecutions, writeMonth, type MonthPlan } from './lib/simulated-month';

const [settingsFile, project, prefix, work] = process.argv.slice(2);
const write = process.argv.includes('--write');
if (!settingsFile || !project || !prefix || !work) {
  throw new Error('usage: bench-host.ts <compose.env> <compose project> <prefix> <work dir> [--write]');
}
const repo = path.join(__dirname, '..');
const settings = parseEnv(readFileSync(settingsFile, 'utf8'), settingsFile);
const MiB = 1024 * 1024;
const GB = 1e9;
const HOST_RAM = 4 * GB;
const HOST_DISK = 15 * GB;
const AGENT_WORKFLOW = 'assistantAgent01';
/** n8n's defaults, which the stack does not change (docker-compose.yml sets neither). */
const N8N_PRUNE_MAX_AGE_HOURS = 336;
const N8N_PRUNE_MAX_COUNT = 10_000;
const MONTH: MonthPlan = {
  turns: 10_000,
  memories: 50_000,
  checks: 10,
  checkRunsPerCheckPerDay: 24,
  ticksPerDay: 1440,
  // every workflow saves only failed executions; twice what n8n keeps, so that pruning has work to do
  executions: 2 * N8N_PRUNE_MAX_COUNT,
};

const log = (line: string) => console.log(`[bench-host] ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function docker(args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8', maxBuffer: 64 * MiB });
}

function compose(args: string[]): string {
  const files = [path.join(prefix, 'docker-compose.yml'), path.join(repo, 'docker-compose.test.yml')];
  return execFileSync(
    'docker-compose',
    ['-p', project, '--env-file', settingsFile, ...files.flatMap((file) => ['-f', file]), ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
}

function containerOf(service: string): string {
  const id = docker([
    'ps',
    '-q',
    '--filter',
    `label=com.docker.compose.project=${project}`,
    '--filter',
    `label=com.docker.compose.service=${service}`,
  ]).trim();
  if (!id) throw new Error(`no running ${service} container`);
  return id;
}

const ipOf = (service: string) =>
  docker([
    'inspect',
    '--format',
    '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
    containerOf(service),
  ]).trim();

async function waitHealthy(service: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = docker(['inspect', '--format', '{{.State.Health.Status}}', containerOf(service)]).trim();
    if (health === 'healthy') return;
    if (Date.now() > deadline) throw new Error(`${service} not healthy in time (${health})`);
    await sleep(2000);
  }
}

/** The browser service again, allowed to reach the sign-in site (ASSISTANT_OUTBOUND_ALLOW, an extra compose file). */
async function allowSite(hostPort: string): Promise<void> {
  const override = path.join(work, 'bench-browser.yml');
  writeFileSync(override, `services:\n  browser:\n    environment:\n      ASSISTANT_OUTBOUND_ALLOW: '${hostPort}'\n`);
  compose(['-f', override, 'up', '-d', '--no-deps', '--no-build', 'browser']);
  await waitHealthy('browser', 180_000);
}

const element = (page: SessionPage, role: string, name: string) => {
  const found = page.elements.find((candidate) => candidate.role === role && candidate.name === name);
  if (!found) throw new Error(`no ${role} "${name}" on ${page.url}: ${page.text.slice(0, 200)}`);
  return found.ref;
};

function pgPool(database: string): Pool {
  return new Pool({
    host: ipOf('postgres'),
    port: 5432,
    user: 'n8n',
    password: settings.POSTGRES_PASSWORD,
    database,
    max: 4,
  });
}

interface LoadResult {
  window: MemoryWindow;
  kernelPeaks: Map<string, number>;
  limits: Map<string, number>;
  limitHits: Map<string, number>;
  peaksReset: boolean;
  timings: Record<string, number>;
  userTurnId: number;
  replyTurnId: number;
  checkRunId: number;
  executionId: string | null;
}

/** The three at once: the browser signs in, a check runs (the next minute's tick), a turn is answered. */
async function busy(db: Pool, n8n: Pool, siteUrl: string, site: Awaited<ReturnType<typeof startLoginSite>>) {
  const owner = (await resolveIdentity(db, 'api', 'owner')).userId;
  // The tick runs at each whole minute: start 6 s before one, so the three overlap.
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000 || intoMinute < 30_000) await sleep((((50_000 - intoMinute) % 60_000) + 60_000) % 60_000);
  const added = await addCheck(db, owner, { what: 'riverside zoo opening hours', schedule: 'every hour' }, new Date());
  if (!added.ok) throw new Error(`the check was not added: ${added.message}`);
  await sleep(Math.max(0, 54_000 - (Date.now() % 60_000)));
  const cgroups = projectCgroups(project);
  const peaksReset = cgroups.every(resetPeak);
  const sampler = sampleMemory(cgroups);
  const started = Date.now();
  const timings: Record<string, number> = {};
  const marker = `bench-${started}`;

  const signIn = (async () => {
    const browser = ipOf('browser');
    const { session } = createBrowserClient({ url: `http://${browser}:8790`, key: settings.ASSISTANT_BROWSER_KEY });
    const user = owner;
    let page = await session.open({ user, url: `${siteUrl}/login` });
    page = await session.fill({ user, ref: element(page, 'textbox', 'User name'), value: site.username });
    page = await session.fill({
      user,
      ref: element(page, 'password', 'Password'),
      value: site.password,
      secret: true,
      sites: [siteUrl],
    });
    page = await session.click({ user, ref: element(page, 'button', 'Sign in') });
    if (!page.codeField) throw new Error(`the site asked for no code: ${page.text.slice(0, 200)}`);
    page = await session.fill({ user, ref: page.codeField.ref, value: site.currentCode(), secret: true });
    page = await session.click({ user, ref: element(page, 'button', 'Verify') });
    if (!page.text.includes('Signed in as')) throw new Error(`not signed in: ${page.text.slice(0, 200)}`);
    await session.close({ user });
    timings['browser sign-in (open, two fields, sign in, code, verify, close)'] = Date.now() - started;
  })();

  const turn = (async () => {
    const response = await fetch(`http://127.0.0.1:${settings.N8N_PORT}/webhook/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': settings.ASSISTANT_API_KEY },
      body: JSON.stringify({ message: `hello ${marker}`, user_id: 'owner' }),
    });
    const body = await response.text();
    if (response.status !== 200 || !body.includes(marker)) throw new Error(`the turn: ${response.status} ${body}`);
    timings['turn answered (POST /webhook/agent)'] = Date.now() - started;
  })();

  // The agent's execution, copied while it runs: n8n deletes a successful one as it ends (deleteInFlightExecution;
  // every workflow sets saveDataSuccessExecution none), so what it stores in flight (the workflow's JSON and the
  // trigger's data) is the month's source. A failed execution, the kind n8n keeps, also holds each node's output.
  const execution = (async () => {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const found = await n8n.query<{ id: string }>(
        `SELECT e.id FROM public.execution_entity e JOIN public.execution_data d ON d."executionId" = e.id
          WHERE e."workflowId" = $1 AND e."createdAt" >= $2
          ORDER BY e.id DESC LIMIT 1`,
        [AGENT_WORKFLOW, new Date(started - 5000)],
      );
      const [copy] = found.rows[0] ? await copyExecutions(n8n, found.rows[0].id, 1, new Date()) : [];
      if (copy) return copy;
      await sleep(50);
    }
    return null;
  })();

  const check = (async () => {
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      const run = await db.query<{ id: string; status: string }>(
        `SELECT id, status FROM assistant.check_runs WHERE check_id = $1 AND finished_at IS NOT NULL`,
        [added.check.id],
      );
      if (run.rows[0]) {
        timings[`check run (${run.rows[0].status}; started by the minute tick)`] = Date.now() - started;
        return Number(run.rows[0].id);
      }
      await sleep(250);
    }
    throw new Error('the check did not run within 3 minutes');
  })();

  const [, , executionId, checkRunId] = await Promise.all([signIn, turn, execution, check]);
  await sleep(2000);
  const window = await sampler.stop();
  const readings = new Map(cgroups.map((cgroup) => [cgroup.service, readMemory(cgroup)]));
  const turns = await db.query<{ id: string; role: string }>(
    `SELECT t.id, t.role FROM assistant.turns t
      WHERE t.id = (SELECT id FROM assistant.turns WHERE role = 'user' AND content LIKE $1)
         OR t.answers_turn_id = (SELECT id FROM assistant.turns WHERE role = 'user' AND content LIKE $1)`,
    [`%${marker}%`],
  );
  const turnId = (role: string) => {
    const row = turns.rows.find((candidate) => candidate.role === role);
    if (!row) throw new Error(`the turn's ${role} row is missing`);
    return Number(row.id);
  };
  return {
    window,
    kernelPeaks: new Map([...readings].map(([service, reading]) => [service, reading.kernelPeak])),
    limits: new Map([...readings].map(([service, reading]) => [service, reading.limit])),
    limitHits: new Map([...readings].map(([service, reading]) => [service, reading.limitHits])),
    peaksReset,
    timings,
    userTurnId: turnId('user'),
    replyTurnId: turnId('assistant'),
    checkRunId,
    executionId,
  } satisfies LoadResult;
}

/** Bytes on disk of each of the project's volumes (du of its folder in dockerd's data root). */
function volumeSizes(): Map<string, number> {
  const names = docker(['volume', 'ls', '-q', '--filter', `label=com.docker.compose.project=${project}`])
    .split('\n')
    .filter(Boolean);
  return new Map(
    names.map((name) => {
      const mountpoint = docker(['volume', 'inspect', '--format', '{{.Mountpoint}}', name]).trim();
      const bytes = Number(execFileSync('du', ['-sb', mountpoint], { encoding: 'utf8' }).split('\t')[0]);
      return [name.replace(`${project}_`, ''), bytes];
    }),
  );
}

async function databaseSizes(db: Pool): Promise<Map<string, number>> {
  const result = await db.query<{ name: string; bytes: string }>(
    `SELECT datname AS name, pg_database_size(datname) AS bytes FROM pg_database WHERE datname = ANY($1)`,
    [['n8n', 'assistant']],
  );
  return new Map(result.rows.map((row) => [row.name, Number(row.bytes)]));
}

interface DiskReading {
  volumes: Map<string, number>;
  databases: Map<string, number>;
}

async function disk(db: Pool): Promise<DiskReading> {
  await db.query('CHECKPOINT');
  return { volumes: volumeSizes(), databases: await databaseSizes(db) };
}

/**
 * n8n's pruning. Its soft deletion (ExecutionRepository.softDeletePrunableExecutions in n8n 2.41.1: executions stopped
 * more than EXECUTIONS_DATA_MAX_AGE ago, 336 h by default, or at or below the id 10,000 (EXECUTIONS_DATA_PRUNE_MAX_COUNT)
 * places from the newest, annotated ones never) is a system task on its own timer, every 60 minutes
 * (EXECUTIONS_DATA_PRUNE_SOFT_DELETE_INTERVAL, not set by the stack): the same UPDATE is made here with the same rules.
 * n8n's hard deletion (EXECUTIONS_DATA_PRUNE_HARD_DELETE_INTERVAL=1 and buffer 0 in the stack: within a minute, then
 * batches of 100 a second apart) then removes the rows for real, which is waited for.
 */
async function prune(n8n: Pool): Promise<{ marked: number; hardDeletedInMs: number }> {
  const notAnnotated = 'id NOT IN (SELECT "executionId" FROM public.execution_annotations)';
  const marked = await n8n.query(
    `UPDATE public.execution_entity SET "deletedAt" = now()
      WHERE "deletedAt" IS NULL AND status NOT IN ('new', 'running', 'waiting') AND ${notAnnotated}
        AND ("stoppedAt" <= now() - $1 * interval '1 hour'
             OR id <= (SELECT id FROM public.execution_entity WHERE ${notAnnotated}
                        ORDER BY id DESC OFFSET $2 LIMIT 1))`,
    [N8N_PRUNE_MAX_AGE_HOURS, N8N_PRUNE_MAX_COUNT],
  );
  const started = Date.now();
  for (;;) {
    const left = await n8n.query<{ n: string }>(
      'SELECT count(*) AS n FROM public.execution_entity WHERE "deletedAt" IS NOT NULL',
    );
    if (Number(left.rows[0].n) === 0) break;
    if (Date.now() - started > 20 * 60_000) throw new Error(`n8n's hard deletion left ${left.rows[0].n} executions`);
    await sleep(5000);
  }
  return { marked: marked.rowCount ?? 0, hardDeletedInMs: Date.now() - started };
}

function images(): Array<{ image: string; bytes: number }> {
  const used = new Set(
    docker(['ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Image}}'])
      .split('\n')
      .filter(Boolean),
  );
  return [...used].sort().map((image) => ({
    image,
    bytes: Number(docker(['image', 'inspect', '--format', '{{.Size}}', image]).trim()),
  }));
}

function dockerDiskUsage(): Record<string, string> {
  const rows = docker(['system', 'df', '--format', '{{.Type}}\t{{.Size}}']).trim().split('\n');
  return Object.fromEntries(rows.map((row) => row.split('\t') as [string, string]));
}

const duBytes = (folder: string) => Number(execFileSync('du', ['-sbL', folder], { encoding: 'utf8' }).split('\t')[0]);

const mib = (bytes: number) => `${Math.round(bytes / MiB).toLocaleString('en-US')} MiB`;
const gb = (bytes: number) => `${(bytes / GB).toFixed(2)} GB`;
const table = (header: string[], align: string[], rows: string[][]) =>
  [`| ${header.join(' | ')} |`, `| ${align.join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

async function main(): Promise<void> {
  const db = pgPool('assistant');
  const n8n = pgPool('n8n');
  const site = await startLoginSite();
  const publicHost = new URL(settings.N8N_PUBLIC_URL).hostname;
  const sitePort = await forward(site.url);
  const siteUrl = `http://${publicHost}:${sitePort}`;
  try {
    log(`the browser service allowed to reach the sign-in site at ${siteUrl}`);
    await allowSite(`${publicHost}:${sitePort}`);

    log('idle: a quiet minute, then 30 s of samples');
    await sleep(60_000);
    const idleSampler = sampleMemory(projectCgroups(project), 1000);
    await sleep(30_000);
    const idle = await idleSampler.stop();

    log('busy: the browser signs in, a check runs and a turn is answered, at once');
    const load = await busy(db, n8n, siteUrl, site);
    if (!load.executionId) throw new Error("the agent's execution was not found to copy");
    for (const [what, ms] of Object.entries(load.timings)) log(`  ${what}: ${(ms / 1000).toFixed(1)} s`);

    const size = await n8n.query<{ stored: number; raw: number }>(
      `SELECT pg_column_size("workflowData") + pg_column_size(data) AS stored,
              octet_length("workflowData"::text) + octet_length(data) AS raw
         FROM public.execution_data WHERE "executionId" = $1`,
      [load.executionId],
    );
    const fresh = await disk(db);
    log('a simulated month: rows written');
    const monthStarted = Date.now();
    const owner = (await resolveIdentity(db, 'api', 'owner')).userId;
    const written = await writeMonth(
      db,
      n8n,
      MONTH,
      {
        userId: owner,
        userTurnId: load.userTurnId,
        replyTurnId: load.replyTurnId,
        checkRunId: load.checkRunId,
        executionId: load.executionId,
      },
      new Date(),
    );
    log(`  written in ${Math.round((Date.now() - monthStarted) / 1000)} s`);
    const month = await disk(db);
    log("n8n's pruning (the soft deletion marked here as n8n's timer does, its hard deletion waited for)");
    const pruned = await prune(n8n);
    const afterPrune = await disk(db);
    const kept = await n8n.query<{ n: string }>('SELECT count(*) AS n FROM public.execution_entity');

    const report = render({
      idle,
      load,
      disks: [fresh, month, afterPrune],
      written,
      pruned,
      executionsKept: Number(kept.rows[0].n),
      execution: { stored: Number(size.rows[0].stored), raw: Number(size.rows[0].raw) },
      images: images(),
      dockerDf: dockerDiskUsage(),
      code: duBytes(prefix),
      n8nModules: duBytes(path.join(repo, 'scripts/runtime/n8n/node_modules')),
    });
    console.log(`\n${report}`);
    if (write) writeSection(report);
  } finally {
    await site.close();
    await db.end();
    await n8n.end();
  }
}

interface Results {
  idle: MemoryWindow;
  load: LoadResult;
  disks: [DiskReading, DiskReading, DiskReading];
  written: Record<string, number>;
  pruned: { marked: number; hardDeletedInMs: number };
  executionsKept: number;
  /** one copied execution's data: bytes as Postgres stores them (compressed) and as text */
  execution: { stored: number; raw: number };
  images: Array<{ image: string; bytes: number }>;
  dockerDf: Record<string, string>;
  code: number;
  n8nModules: number;
}

function render(results: Results): string {
  const { idle, load } = results;
  const services = [...load.window.max.keys()].sort(
    (a, b) => (load.window.max.get(b) ?? 0) - (load.window.max.get(a) ?? 0),
  );
  const memoryRows = services.map((service) => [
    service,
    mib(idle.mean.get(service) ?? 0),
    mib(load.window.max.get(service) ?? 0),
    mib(load.kernelPeaks.get(service) ?? 0),
    Number.isFinite(load.limits.get(service)) ? mib(load.limits.get(service) ?? 0) : 'none',
    String(load.limitHits.get(service) ?? 0),
  ]);
  const limitSum = services.reduce(
    (sum, s) => sum + (Number.isFinite(load.limits.get(s)) ? load.limits.get(s)! : 0),
    0,
  );
  memoryRows.push([
    '**whole stack**',
    `**${mib(idle.meanTotal)}**`,
    `**${mib(load.window.maxTotal)}**`,
    mib([...load.kernelPeaks.values()].reduce((a, b) => a + b, 0)),
    mib(limitSum),
    '',
  ]);
  const [fresh, month, afterPrune] = results.disks;
  const volumeNames = [...month.volumes.keys()].sort();
  const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
  const diskRows = [
    ...volumeNames.map((name) => [
      `volume ${name}`,
      mib(fresh.volumes.get(name) ?? 0),
      mib(month.volumes.get(name) ?? 0),
      mib(afterPrune.volumes.get(name) ?? 0),
    ]),
    ...['n8n', 'assistant'].map((name) => [
      `of which database ${name} (pg_database_size)`,
      mib(fresh.databases.get(name) ?? 0),
      mib(month.databases.get(name) ?? 0),
      mib(afterPrune.databases.get(name) ?? 0),
    ]),
    [
      '**volumes, all**',
      `**${mib(sum(fresh.volumes.values()))}**`,
      `**${mib(sum(month.volumes.values()))}**`,
      `**${mib(sum(afterPrune.volumes.values()))}**`,
    ],
  ];
  const imageBytes = sum(results.images.map((image) => image.bytes));
  const volumesAfter = sum(afterPrune.volumes.values());
  const diskTotal = imageBytes + results.n8nModules + results.code + volumesAfter;
  const peak = load.window.maxTotal;
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const [one, five, fifteen] = loadavg().map((value) => value.toFixed(1));
  return [
    '<!-- generated:seed-host -->',
    '',
    'Memory per service (working set: usage minus inactive file cache, as `docker stats`): idle is the mean of 30 s ' +
      'of samples after a quiet minute; busy is the largest sample (every 250 ms) while the three ran at once; ' +
      "the kernel's peak (cgroup " +
      (load.peaksReset ? 'v1 `max_usage_in_bytes`, reset as the busy window began' : '`memory.peak`, since start') +
      ') counts page cache too; limit hits: times the cgroup reached its `mem_limit`.',
    '',
    table(
      ['service', 'idle', 'busy (max)', 'kernel peak', 'limit', 'limit hits'],
      ['---', '---:', '---:', '---:', '---:', '---:'],
      memoryRows,
    ),
    '',
    `Busy window (${load.window.samples} samples): ` +
      Object.entries(load.timings)
        .map(([what, ms]) => `${what} ${(ms / 1000).toFixed(1)} s`)
        .join('; ') +
      '.',
    '',
    `**Memory: busy peak ${gb(peak)} of the stack at one instant (the largest sum of one sample) against ${gb(HOST_RAM)}` +
      ` of RAM: ${gb(HOST_RAM - peak)} left for the OS and page cache; the limits add up to ${gb(limitSum)}.**`,
    '',
    "Disk, the volumes (`du` of each volume in dockerd's data root, after a CHECKPOINT): fresh, after a simulated " +
      `month (${Object.entries(results.written)
        .map(([what, n]) => `${n.toLocaleString('en-US')} ${what}`)
        .join(', ')}), and after n8n's pruning (${results.pruned.marked.toLocaleString('en-US')} executions ` +
      `marked by the max-age/max-count rules; n8n's own hard deletion removed them in ` +
      `${Math.round(results.pruned.hardDeletedInMs / 1000)} s; ${results.executionsKept.toLocaleString('en-US')} kept):`,
    '',
    table(['what', 'fresh', 'a month', 'a month, pruned'], ['---', '---:', '---:', '---:'], diskRows),
    '',
    `One execution copied: ${Math.round(results.execution.raw / 1024).toLocaleString('en-US')} KiB of text, ` +
      `${Math.round(results.execution.stored / 1024).toLocaleString('en-US')} KiB as Postgres stores it ` +
      "(the agent's execution as n8n holds it in flight: the workflow's JSON and the trigger's data).",
    '',
    'Images (the stand-ins this machine builds, `docker image inspect` size; shared layers counted in each):',
    '',
    table(
      ['image', 'size'],
      ['---', '---:'],
      [
        ...results.images.map((image) => [image.image, mib(image.bytes)]),
        ["n8n's modules (the stand-in mounts the runtime's install instead of holding it)", mib(results.n8nModules)],
        ['the code in the prefix (setup.sh copies the repository)', mib(results.code)],
      ],
    ),
    '',
    `dockerd's own count (\`docker system df\`, its data root holds only this stack): ${Object.entries(results.dockerDf)
      .map(([type, size]) => `${type} ${size}`)
      .join(', ')}.`,
    '',
    `**Disk: images ${gb(imageBytes)} + n8n's modules ${gb(results.n8nModules)} + code ${gb(results.code)} + ` +
      `volumes after a month ${gb(volumesAfter)} = ${gb(diskTotal)} against ${gb(HOST_DISK)}; the OS not counted.**`,
    '',
    `Run at ${new Date().toISOString()} on ${cpus().length} cores (${cpu}), ${gb(totalmem())} RAM; load average ` +
      `${one} / ${five} / ${fifteen} at the end.`,
    '',
    '<!-- /generated:seed-host -->',
  ].join('\n');
}

/** Replaces the generated part of "The seed's host" in docs/BENCHMARKS.md (the section must exist). */
function writeSection(report: string): void {
  const file = path.join(repo, 'docs', 'BENCHMARKS.md');
  const current = readFileSync(file, 'utf8');
  const start = current.indexOf('<!-- generated:seed-host -->');
  const endMarker = '<!-- /generated:seed-host -->';
  const end = current.indexOf(endMarker);
  if (start === -1 || end === -1) throw new Error(`docs/BENCHMARKS.md has no ${endMarker} markers`);
  writeFileSync(file, `${current.slice(0, start)}${report}${current.slice(end + endMarker.length)}`);
  log('docs/BENCHMARKS.md written');
}

main().catch((error: Error) => {
  console.error(`[bench-host] FAILED: ${error.stack ?? error.message}`);
  process.exit(1);
});
