// How many wrong passwords the console takes, in a sliding window: per client address, and from everyone together
// (a guesser with many addresses). Past either, sign-in waits (Retry-After says how long), even with the right
// password: a guesser must not learn that a guess was right.

export interface SignInLimits {
  perAddress: number;
  overall: number;
  windowMs: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { perAddress: 5, overall: 30, windowMs: 15 * 60_000 };

export class SignInLimit {
  private readonly failures = new Map<string, number[]>();
  private all: number[] = [];

  constructor(private readonly limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS) {}

  /** Milliseconds until this address may try again; 0 when it may now. */
  waitFor(address: string, now: number): number {
    const since = now - this.limits.windowMs;
    this.all = this.all.filter((at) => at > since);
    const mine = (this.failures.get(address) ?? []).filter((at) => at > since);
    if (mine.length === 0) this.failures.delete(address);
    else this.failures.set(address, mine);
    const waits = [
      mine.length >= this.limits.perAddress ? mine[mine.length - this.limits.perAddress] - since : 0,
      this.all.length >= this.limits.overall ? this.all[this.all.length - this.limits.overall] - since : 0,
    ];
    return Math.max(...waits);
  }

  failed(address: string, now: number): void {
    this.failures.set(address, [...(this.failures.get(address) ?? []), now]);
    this.all.push(now);
  }
}
