// The open playground's own limits, shared by every caller without a key: a sliding one-minute request rate and
// an hourly input-token quota (a fixed window from its first use). Tokens are reserved before a request is judged
// (at most what the quota has left, which also caps the request's token budget) and settled with the real usage.

export type Clock = () => number;

export class RequestRate {
  private readonly times: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: Clock = Date.now,
  ) {}

  /** Counts one request; false (with the wait) when the window is full. */
  take(): { ok: true } | { ok: false; retryAfterMs: number } {
    const now = this.now();
    while (this.times.length > 0 && now - this.times[0] >= this.windowMs) this.times.shift();
    if (this.times.length >= this.limit) return { ok: false, retryAfterMs: this.times[0] + this.windowMs - now };
    this.times.push(now);
    return { ok: true };
  }
}

export class TokenQuota {
  private windowStart = -Infinity;
  private used = 0;
  private reserved = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: Clock = Date.now,
  ) {}

  private roll(): void {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.used = 0;
    }
  }

  /** Tokens not used or reserved in this window. */
  left(): number {
    this.roll();
    return Math.max(0, this.limit - this.used - this.reserved);
  }

  /** Milliseconds until the window starts over. */
  resetsInMs(): number {
    this.roll();
    return Math.max(0, this.windowStart + this.windowMs - this.now());
  }

  /** Reserves up to `max` tokens; 0 when none are left. */
  reserve(max: number): number {
    const granted = Math.min(max, this.left());
    this.reserved += granted;
    return granted;
  }

  /** Releases a reservation and counts what the request really used (0 when it failed before the model). */
  settle(reserved: number, used: number): void {
    this.reserved = Math.max(0, this.reserved - reserved);
    this.roll();
    this.used = Math.min(this.limit, this.used + Math.max(0, used));
  }
}
