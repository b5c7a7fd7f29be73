// The memory of a compose project's containers, read from their cgroups (the host benchmark, scripts/bench-host.ts).
// Working set = usage minus inactive file cache, as `docker stats` shows it; the kernel's peak (cgroup v1
// memory.max_usage_in_bytes, reset by writing 0; v2 memory.peak, since the container started) includes page cache;
// failcnt (v1) or oom_kill (v2) says whether a limit was hit. Needs root (the cgroup files, and the reset).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface ContainerCgroup {
  service: string;
  id: string;
  dir: string;
  v2: boolean;
}

export interface MemoryReading {
  /** usage − inactive file, bytes */
  workingSet: number;
  /** the kernel's peak since the last reset (v1) or the start (v2), page cache included */
  kernelPeak: number;
  limit: number;
  /** v1 failcnt (times the limit was reached), v2 oom_kill */
  limitHits: number;
}

const CGROUP_ROOTS = ['/sys/fs/cgroup/memory', '/sys/fs/cgroup'];
const PARENTS = ['docker', 'system.slice'];

function docker(args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8' });
}

/** The running containers of the project, each with its cgroup folder. */
export function projectCgroups(project: string): ContainerCgroup[] {
  const ids = docker(['ps', '-q', '--no-trunc', '--filter', `label=com.docker.compose.project=${project}`])
    .split('\n')
    .filter(Boolean);
  return ids.map((id) => {
    const service = docker(['inspect', '--format', '{{index .Config.Labels "com.docker.compose.service"}}', id]).trim();
    for (const root of CGROUP_ROOTS) {
      for (const parent of PARENTS) {
        for (const name of [id, `docker-${id}.scope`]) {
          const dir = path.join(root, parent, name);
          if (existsSync(dir)) return { service, id, dir, v2: !root.endsWith('/memory') };
        }
      }
    }
    throw new Error(`no memory cgroup found for ${service} (${id.slice(0, 12)})`);
  });
}

const readNumber = (file: string) => {
  const text = readFileSync(file, 'utf8').trim();
  return text === 'max' ? Number.POSITIVE_INFINITY : Number(text);
};

function statValue(dir: string, key: string): number {
  const line = readFileSync(path.join(dir, 'memory.stat'), 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${key} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

export function readMemory(cgroup: ContainerCgroup): MemoryReading {
  const { dir } = cgroup;
  if (cgroup.v2) {
    const events = readFileSync(path.join(dir, 'memory.events'), 'utf8');
    return {
      workingSet: readNumber(path.join(dir, 'memory.current')) - statValue(dir, 'inactive_file'),
      kernelPeak: existsSync(path.join(dir, 'memory.peak')) ? readNumber(path.join(dir, 'memory.peak')) : 0,
      limit: readNumber(path.join(dir, 'memory.max')),
      limitHits: Number(/oom_kill (\d+)/.exec(events)?.[1] ?? 0),
    };
  }
  return {
    workingSet: readNumber(path.join(dir, 'memory.usage_in_bytes')) - statValue(dir, 'total_inactive_file'),
    kernelPeak: readNumber(path.join(dir, 'memory.max_usage_in_bytes')),
    limit: readNumber(path.join(dir, 'memory.limit_in_bytes')),
    limitHits: readNumber(path.join(dir, 'memory.failcnt')),
  };
}

/** Starts the kernel's peak anew (v1; v2's memory.peak is reset only on kernels that allow writing it). */
export function resetPeak(cgroup: ContainerCgroup): boolean {
  try {
    if (cgroup.v2) writeFileSync(path.join(cgroup.dir, 'memory.peak'), 'reset\n');
    else writeFileSync(path.join(cgroup.dir, 'memory.max_usage_in_bytes'), '0\n');
    return true;
  } catch {
    return false;
  }
}

export interface MemoryWindow {
  samples: number;
  /** per service: the largest working set sampled, and the mean */
  max: Map<string, number>;
  mean: Map<string, number>;
  /** the largest sum over services at one sampling instant */
  maxTotal: number;
  meanTotal: number;
}

/**
 * Samples every container's working set every `everyMs` until `stop` is called; its promise gives the window. A
 * container gone mid-window (a one-shot service) is dropped from the following samples.
 */
export function sampleMemory(cgroups: ContainerCgroup[], everyMs = 250): { stop: () => Promise<MemoryWindow> } {
  const max = new Map<string, number>();
  const sum = new Map<string, number>();
  let samples = 0;
  let maxTotal = 0;
  let totalSum = 0;
  let live = [...cgroups];
  const take = () => {
    let total = 0;
    live = live.filter((cgroup) => {
      let reading: MemoryReading;
      try {
        reading = readMemory(cgroup);
      } catch {
        return false;
      }
      total += reading.workingSet;
      max.set(cgroup.service, Math.max(max.get(cgroup.service) ?? 0, reading.workingSet));
      sum.set(cgroup.service, (sum.get(cgroup.service) ?? 0) + reading.workingSet);
      return true;
    });
    samples += 1;
    totalSum += total;
    maxTotal = Math.max(maxTotal, total);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop: async () => {
      clearInterval(timer);
      take();
      const mean = new Map([...sum].map(([service, bytes]) => [service, bytes / samples]));
      return { samples, max, mean, maxTotal, meanTotal: totalSum / samples };
    },
  };
}
