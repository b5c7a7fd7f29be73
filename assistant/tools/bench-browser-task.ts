// npx tsx assistant/tools/bench-browser-task.ts: the browser service's per-user sessions (issue 13) on a loopback
// site with a sign-in behind a TOTP code (assistant/test/browser/login-site.ts), the service a real child process.
//   one task  — open /login, snapshot, fill the user name, fill the password (a secret for the site), click Sign in
//               (→ /2fa), fill the code (a secret), click Verify (→ /account), screenshot, close; each task a new user
//               (a fresh profile);
//   returning — a user who signed in before opens /account directly with the kept profile (already signed in:
//               "Signed in as", "Welcome back" from local storage), then close; rounds alternate fresh and returning;
//   3 at once — rounds of 3 users' sign-ins at the same time (ASSISTANT_BROWSER_MAX_TASKS, 3 by default);
//   memory    — RSS, PSS (shared pages split among the processes mapping them, on the whole machine) and USS (private
//               pages only) of the service's process tree (Node + Chromium), and the Node process's USS: idle, during
//               a task (signed in, on /account), after N/2 and N tasks (all closed: flat means no leak), with 3 tasks
//               open at once, and the peak during the 3-at-once rounds (sampled every 200 ms). Measurements with
//               no task open are taken 2 s after the last close (renderers end a moment after their task).
// A step's time is its round trip through the client; a task's time is the sum of its steps (the memory probes and
// the wait for the other users in the 3-at-once rounds are left out).
//   --tasks N (fresh sign-ins, default 30; as many returning ones), --parallel-rounds N (default 10, 3 tasks each)
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { startBrowserService } from '../../scripts/runtime/browser';
import { memoryOf, type Memory } from './process-memory';
import { createBrowserClient, type BrowserClient } from '../src/browser/client';
import type { SessionElement, SessionPage } from '../src/browser/protocol';
import { startLoginSite, type LoginSite } from '../test/browser/login-site';

const { values } = parseArgs({
  options: { tasks: { type: 'string', default: '30' }, 'parallel-rounds': { type: 'string', default: '10' } },
});
const TASKS = Number(values.tasks);
const PARALLEL_ROUNDS = Number(values['parallel-rounds']);
const AT_ONCE = 3;
const WARMUP = 2;
const SAMPLE_MS = 200;
const SETTLE_MS = 2_000;

const SIGN_IN_STEPS = [
  'open /login (task starts)',
  'snapshot',
  'fill: user name',
  'fill (secret, sites): password',
  'click Sign in → /2fa',
  'fill (secret): TOTP code',
  'click Verify → /account',
  'screenshot',
  'close (profile saved)',
] as const;
const RETURNING_STEPS = ['returning: open /account (kept profile)', 'returning: close'] as const;
type StepName = (typeof SIGN_IN_STEPS)[number] | (typeof RETURNING_STEPS)[number];

type Samples = Record<StepName, number[]>;
const newSamples = (): Samples =>
  Object.fromEntries([...SIGN_IN_STEPS, ...RETURNING_STEPS].map((name) => [name, []])) as unknown as Samples;

/** Each task's time: the sum of its steps (every task records each of its steps once, in order). */
const taskTotals = (samples: Samples, steps: readonly StepName[]): number[] =>
  samples[steps[0]].map((_, i) => steps.reduce((sum, step) => sum + samples[step][i], 0));

const percentile = (samples: number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

const highest = (a: Memory, b: Memory): Memory => ({
  rss: Math.max(a.rss, b.rss),
  pss: Math.max(a.pss, b.pss),
  uss: Math.max(a.uss, b.uss),
  nodeUss: Math.max(a.nodeUss, b.nodeUss),
  processes: Math.max(a.processes, b.processes),
});

/** Samples the tree every `everyMs` until stopped; the highest RSS, PSS and process count (each on its own). */
function peakSampler(root: number, everyMs: number): { stop(): Memory } {
  let peak: Memory = memoryOf(root);
  const timer = setInterval(() => (peak = highest(peak, memoryOf(root))), everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return highest(peak, memoryOf(root));
    },
  };
}

/** After tasks closed: Chromium ends their renderers a moment later; then the tree is measured. */
async function settledMemoryOf(root: number): Promise<Memory> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  return memoryOf(root);
}

function element(page: SessionPage, role: string, name: string): SessionElement {
  const found = page.elements.find((item) => item.role === role && item.name === name);
  if (!found) throw new Error(`no ${role} "${name}" on ${page.url}: ${JSON.stringify(page.elements)}`);
  return found;
}

/** A step runner adding each step's round trip to `samples` (none: not counted). */
const stepTimer =
  (samples: Samples | undefined) =>
  async <T>(name: StepName, work: () => Promise<T>): Promise<T> => {
    const start = process.hrtime.bigint();
    const result = await work();
    samples?.[name].push(Number(process.hrtime.bigint() - start) / 1e6);
    return result;
  };

/** A new user's whole sign-in; `atAccount` runs once signed in (not timed), before the screenshot. */
async function signInTask(
  client: BrowserClient,
  site: LoginSite,
  user: string,
  samples: Samples | undefined,
  atAccount?: () => Promise<void> | void,
): Promise<void> {
  const { session } = client;
  const step = stepTimer(samples);
  let page = await step('open /login (task starts)', () => session.open({ user, url: `${site.url}/login` }));
  if (page.task.pages !== 1) throw new Error(`a new user's task starts with ${page.task.pages} pages`);
  page = await step('snapshot', () => session.snapshot({ user }));
  page = await step('fill: user name', () =>
    session.fill({ user, ref: element(page, 'textbox', 'User name').ref, value: site.username }),
  );
  page = await step('fill (secret, sites): password', () =>
    session.fill({
      user,
      ref: element(page, 'password', 'Password').ref,
      value: site.password,
      secret: true,
      sites: [site.url],
    }),
  );
  page = await step('click Sign in → /2fa', () => session.click({ user, ref: element(page, 'button', 'Sign in').ref }));
  if (!page.url.endsWith('/2fa') || !page.codeField) throw new Error(`Sign in led to ${page.url}, no code field`);
  const codeRef = page.codeField.ref;
  page = await step('fill (secret): TOTP code', () =>
    session.fill({ user, ref: codeRef, value: site.currentCode(), secret: true, sites: [site.url] }),
  );
  page = await step('click Verify → /account', () =>
    session.click({ user, ref: element(page, 'button', 'Verify').ref }),
  );
  if (!page.url.endsWith('/account') || !page.text.includes(`Signed in as ${site.username}`)) {
    throw new Error(`Verify led to ${page.url}: ${page.text.slice(0, 200)}`);
  }
  await atAccount?.();
  const shot = await step('screenshot', () => session.screenshot({ user }));
  if (shot.png.length < 1000) throw new Error('the screenshot is empty');
  const closed = await step('close (profile saved)', () => session.close({ user }));
  if (!closed.closed) throw new Error('close found no task');
}

/** A user who signed in before: /account straight away, from the kept profile. */
async function returningTask(
  client: BrowserClient,
  site: LoginSite,
  user: string,
  samples: Samples | undefined,
): Promise<void> {
  const { session } = client;
  const step = stepTimer(samples);
  const page = await step('returning: open /account (kept profile)', () =>
    session.open({ user, url: `${site.url}/account` }),
  );
  if (!page.url.endsWith('/account') || !page.text.includes('Welcome back')) {
    throw new Error(`a returning user is not signed in: ${page.url}: ${page.text.slice(0, 200)}`);
  }
  const closed = await step('returning: close', () => session.close({ user }));
  if (!closed.closed) throw new Error('close found no task');
}

/** Resolves for everyone once `count` callers arrived; `whenAll` runs (once) as the last one arrives. */
function barrier(count: number, whenAll: () => void): () => Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => (release = resolve));
  return () => {
    arrived += 1;
    if (arrived === count) {
      whenAll();
      release();
    }
    return all;
  };
}

async function main(): Promise<void> {
  const loadAtStart = loadavg();
  const site = await startLoginSite();
  const profilesDir = await mkdtemp(path.join(tmpdir(), 'bench-browser-profiles-'));
  const service = await startBrowserService({
    allow: [site.hostPort],
    output: 'ignore',
    env: { ASSISTANT_BROWSER_PROFILES_DIR: profilesDir },
  });
  try {
    const client = createBrowserClient({ url: service.url, key: service.key });
    const pid = service.pid();
    const idle = await settledMemoryOf(pid);

    // Warm-up (not counted): a few sign-ins and a return.
    const signedIn: string[] = [];
    for (let i = 0; i < WARMUP; i++) {
      const user = randomUUID();
      await signInTask(client, site, user, undefined);
      signedIn.push(user);
    }
    await returningTask(client, site, signedIn[0], undefined);
    const warm = await settledMemoryOf(pid);

    // One user at a time: fresh sign-ins and returning users, alternating which goes first.
    const alone = newSamples();
    const during: Array<{ task: number; memory: Memory }> = [];
    const after: Array<{ tasks: number; memory: Memory }> = [];
    for (let task = 1; task <= TASKS; task++) {
      const user = randomUUID();
      const returning = signedIn[(task - 1) % signedIn.length];
      const fresh = () =>
        signInTask(
          client,
          site,
          user,
          alone,
          task === 1 || task === TASKS ? () => void during.push({ task, memory: memoryOf(pid) }) : undefined,
        );
      if (task % 2 === 0) {
        await fresh();
        await returningTask(client, site, returning, alone);
      } else {
        await returningTask(client, site, returning, alone);
        await fresh();
      }
      signedIn.push(user);
      if (task === Math.floor(TASKS / 2) || task === TASKS)
        after.push({ tasks: task, memory: await settledMemoryOf(pid) });
    }

    // Three users at once, rounds of three new sign-ins; memory when all three are on /account, and sampled.
    const together = newSamples();
    let allOpen: Memory = { rss: 0, pss: 0, uss: 0, nodeUss: 0, processes: 0 };
    const sampler = peakSampler(pid, SAMPLE_MS);
    for (let round = 0; round < PARALLEL_ROUNDS; round++) {
      const allSignedIn = barrier(AT_ONCE, () => (allOpen = highest(allOpen, memoryOf(pid))));
      await Promise.all(
        Array.from({ length: AT_ONCE }, () => signInTask(client, site, randomUUID(), together, allSignedIn)),
      );
    }
    const peak = sampler.stop();
    const afterParallel = await settledMemoryOf(pid);

    const health = await client.health();
    const profiles = (await readdir(profilesDir)).filter((name) => name.endsWith('.json')).length;
    const loadAtEnd = loadavg();

    const cells = (samples: number[]) =>
      samples.length === 0 ? '– | –' : `${percentile(samples, 50).toFixed(0)} | ${percentile(samples, 95).toFixed(0)}`;
    const row = (label: string, a: number[], t: number[]) => `| ${label} | ${cells(a)} | ${cells(t)} |`;
    const mem = (label: string, m: Memory) =>
      `| ${label} | ${m.rss.toFixed(0)} | ${m.pss.toFixed(0)} | ${m.uss.toFixed(0)} | ${m.nodeUss.toFixed(0)} | ${m.processes} |`;
    const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
    console.log(
      [
        `browser tasks: ${TASKS} sign-ins one user at a time (and ${TASKS} returning users), then ${PARALLEL_ROUNDS} ` +
          `rounds of ${AT_ONCE} at once; ${cpus().length} cores (${cpus()[0]?.model.trim()}), load (1/5/15 min) ` +
          `${load(loadAtStart)} at start → ${load(loadAtEnd)} at end, Node ${process.version}, Chromium ${health.chromium}`,
        '',
        `| step | alone p50 ms | alone p95 ms | ${AT_ONCE} at once p50 ms | ${AT_ONCE} at once p95 ms |`,
        '| --- | ---: | ---: | ---: | ---: |',
        ...SIGN_IN_STEPS.map((name) => row(name, alone[name], together[name])),
        row(
          `**whole sign-in task** (${SIGN_IN_STEPS.length} steps)`,
          taskTotals(alone, SIGN_IN_STEPS),
          taskTotals(together, SIGN_IN_STEPS),
        ),
        ...RETURNING_STEPS.map((name) => row(name, alone[name], together[name])),
        row(`**whole returning task** (${RETURNING_STEPS.length} steps)`, taskTotals(alone, RETURNING_STEPS), []),
        '',
        'browser service memory (Node + Chromium process tree):',
        '',
        '| when | RSS MB | PSS MB | USS MB | of which Node USS MB | processes |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
        mem('idle, after start', idle),
        mem(`after the warm-up (${WARMUP} sign-ins + 1 return, all closed)`, warm),
        ...during.map((d) => mem(`during sign-in ${d.task} (on /account, 1 task open)`, d.memory)),
        ...after.map((a) => mem(`after ${a.tasks} sign-ins + ${a.tasks} returns (all closed)`, a.memory)),
        mem(`${AT_ONCE} tasks open at once (all on /account; highest of ${PARALLEL_ROUNDS} rounds)`, allOpen),
        mem(`peak during the ${AT_ONCE}-at-once rounds (sampled every ${SAMPLE_MS} ms)`, peak),
        mem(`after the ${AT_ONCE}-at-once rounds (all closed)`, afterParallel),
        '',
        `Chromium launches: ${health.launches}; tasks open at the end: ${health.tasks}; sign-ins the site issued: ` +
          `${site.sessionsIssued}; profiles on disk: ${profiles}; unrouted connections: ${health.unrouted.connections} ` +
          `(${health.unrouted.targets.join(', ') || 'none'})`,
      ].join('\n'),
    );
  } finally {
    await service.stop();
    await site.close();
    await rm(profilesDir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
