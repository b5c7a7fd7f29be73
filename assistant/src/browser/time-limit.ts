// Waiting for something with a time limit, without failing: the caller decides what running out of time means.

export const TIMED_OUT = Symbol('timed out');

/** `work`'s value, or TIMED_OUT after `ms` (work then goes on unwatched; its failure is ignored). */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)));
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
