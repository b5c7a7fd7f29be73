// npx tsx assistant/tools/bench-web.ts: read_page against plain fetch on a loopback site, side by side in one run,
// and the browser service's memory idle and after 200 reads.
//   static page — an article: plain fetch (bytes only) vs read_page (guarded fetch, Readability, Markdown);
//   JS page     — content put in by a script 500 ms after load: plain fetch (gets the empty shell) vs read_page (the
//                 shell, then a render in the browser service, which waits for the content);
//   memory      — RSS (and PSS, which counts shared pages once) of the service's process tree (Node + Chromium),
//                 idle after start, then after 100 and 200 reads (renders of both pages, alternating).
// The cache is off, so every read_page fetches (and renders) again. Rounds alternate the order of the paths.
//   --reads N (per path, default 30), --memory-reads N (default 200)
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

import { startBrowserService } from '../../scripts/runtime/browser';
import { memoryOf } from './process-memory';
import { createBrowserClient } from '../src/browser/client';
import { createOutboundGuard } from '../src/outbound';
import { createPageReader } from '../src/web';
import { ARTICLE_HTML, JS_PAGE_HTML, LATE_TEXT, html, startSite } from '../test/web/fake-site';

const { values } = parseArgs({
  options: { reads: { type: 'string', default: '30' }, 'memory-reads': { type: 'string', default: '200' } },
});
const READS = Number(values.reads);
const MEMORY_READS = Number(values['memory-reads']);
const WARMUP = 3;

const percentile = (samples: number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function main(): Promise<void> {
  const site = await startSite({ '/article': html(ARTICLE_HTML), '/app': html(JS_PAGE_HTML) });
  const service = await startBrowserService({ allow: [site.hostPort], output: 'ignore' });
  try {
    const browser = createBrowserClient({ url: service.url, key: service.key });
    const reader = createPageReader({
      guard: createOutboundGuard({ allow: [site.hostPort], protect: [] }),
      browser,
      cacheTtlMs: 0,
    });
    const idle = memoryOf(service.pid());

    const paths: Record<string, () => Promise<unknown>> = {
      'static: plain fetch': async () => (await fetch(`${site.url}/article`)).text(),
      'static: read_page': () => reader.read({ url: `${site.url}/article` }),
      'JS: plain fetch': async () => (await fetch(`${site.url}/app`)).text(),
      'JS: read_page (fetch, then render)': async () => {
        const page = await reader.read({ url: `${site.url}/app` });
        if (!page.rendered || !page.content.includes(LATE_TEXT)) throw new Error('the JS page was not rendered');
      },
    };
    const names = Object.keys(paths);
    const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    for (const name of names) for (let i = 0; i < WARMUP; i++) await paths[name]();
    for (let round = 0; round < READS; round++) {
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const name of order) samples[name].push(await timed(paths[name]));
    }

    const reads: Array<{ after: number; memory: ReturnType<typeof memoryOf> }> = [];
    for (let read = 1; read <= MEMORY_READS; read++) {
      await reader.read({ url: `${site.url}/${read % 2 === 0 ? 'article' : 'app'}`, render: true });
      if (read === MEMORY_READS / 2 || read === MEMORY_READS)
        reads.push({ after: read, memory: memoryOf(service.pid()) });
    }
    const health = await browser.health();

    const row = (name: string) =>
      `| ${name} | ${percentile(samples[name], 50).toFixed(1)} | ${percentile(samples[name], 90).toFixed(1)} |`;
    const mem = (label: string, m: ReturnType<typeof memoryOf>) =>
      `| ${label} | ${m.rss.toFixed(0)} | ${m.pss.toFixed(0)} | ${m.processes} |`;
    console.log(
      [
        `read_page vs plain fetch, loopback site, ${READS} reads per path (cache off); ${cpus().length} cores, ` +
          `load ${loadavg()[0].toFixed(2)}, Node ${process.version}, Chromium ${health.chromium}`,
        '',
        '| path | p50 ms | p90 ms |',
        '| --- | ---: | ---: |',
        ...names.map(row),
        '',
        `browser service memory (Node + Chromium process tree), ${MEMORY_READS} renders alternating both pages:`,
        '',
        '| when | RSS MB | PSS MB | processes |',
        '| --- | ---: | ---: | ---: |',
        mem('idle, after start', idle),
        ...reads.map((r) => mem(`after ${r.after} reads`, r.memory)),
        '',
        `Chromium launches: ${health.launches}; renders: ${health.renders}; unrouted connections: ${health.unrouted.connections} (${health.unrouted.targets.join(', ') || 'none'})`,
      ].join('\n'),
    );
  } finally {
    await service.stop();
    await site.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
