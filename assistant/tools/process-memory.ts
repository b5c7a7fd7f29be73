// What the benchmarks measure of a service's process tree (Node plus Chromium): its RSS, PSS and USS (private pages)
// in MB, the root's USS apart, read from /proc.
import { readFileSync } from 'node:fs';
import { processTree } from '../../scripts/runtime/process';

export interface Memory {
  rss: number;
  pss: number;
  /** Private pages (USS): mapped by one process only; what a leak grows, whoever else maps the shared files. */
  uss: number;
  /** The root process's own private pages (for the browser service: Node; the rest is Chromium). */
  nodeUss: number;
  processes: number;
}

/** RSS, PSS and USS of a process tree, in MB (USS of its root too), and how many processes it has. */
export function memoryOf(root: number): Memory {
  let rss = 0;
  let pss = 0;
  let uss = 0;
  let nodeUss = 0;
  const pids = processTree(root);
  for (const pid of pids) {
    try {
      rss += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
      pss += kb('Pss');
      const own = kb('Private_Clean') + kb('Private_Dirty');
      uss += own;
      if (pid === root) nodeUss = own;
    } catch {
      // ended meanwhile
    }
  }
  return { rss: rss / 1024, pss: pss / 1024, uss: uss / 1024, nodeUss: nodeUss / 1024, processes: pids.length };
}
