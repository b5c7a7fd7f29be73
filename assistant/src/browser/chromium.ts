// The one long-lived Chromium of the browser service, launched with playwright-core and reused by every request (each
// gets its own context). If it crashes, the next request launches it again.
//
// Chromium's own network stack is never used for a page: every request is answered by the guarded route (see
// guarded-context.ts). As a backstop for what route interception cannot see (a redirect of a fulfilled request,
// preconnects, WebSockets, WebRTC), Chromium's proxy is a local "black hole" that closes every connection: anything
// that escapes the route fails instead of reaching the network. Chromium's own background traffic (component updates,
// Google accounts) ends there too. Where the connections were headed (host:port only) is in the health answer.
import net from 'node:net';
import { chromium, type Browser } from 'playwright-core';

export interface ChromiumOptions {
  executablePath: string;
  /** More command-line switches. */
  args?: string[];
}

const SWITCHES = [
  '--disable-dev-shm-usage', // containers have a small /dev/shm
  '--disable-gpu',
  '--mute-audio',
  '--no-first-run',
  '--disable-extensions',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--metrics-recording-only',
  '--no-pings',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--js-flags=--max-old-space-size=512', // a page's script cannot take more than this much heap (its tab crashes)
];

const MAX_TARGETS = 50;

/** The host:port a proxy request is for: `CONNECT host:port …` or `GET http://host:port/… …`. */
export function proxyTarget(head: string): string {
  const [method, target] = head.split('\r\n')[0].split(' ');
  if (!target) return 'unknown';
  if (method === 'CONNECT') return target;
  try {
    const url = new URL(target);
    return `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  } catch {
    return 'unknown';
  }
}

export class ChromiumHost {
  private current: Browser | undefined;
  private launching: Promise<Browser> | undefined;
  private blackhole: net.Server | undefined;
  private closed = false;
  /** How many times Chromium was launched. */
  launches = 0;
  /** Connections Chromium made to the black-hole proxy (none reached the network). */
  unroutedConnections = 0;
  /** The host:port they were for (the first MAX_TARGETS different ones). */
  readonly unroutedTargets = new Set<string>();

  constructor(private readonly options: ChromiumOptions) {}

  /** The running Chromium, launched first if needed (one launch at a time). */
  async browser(): Promise<Browser> {
    if (this.closed) throw new Error('the browser service is shutting down');
    if (this.current?.isConnected()) return this.current;
    this.launching ??= this.launch().finally(() => (this.launching = undefined));
    return await this.launching;
  }

  /** Chromium's version while it runs, else null. */
  version(): string | null {
    return this.current?.isConnected() ? this.current.version() : null;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.launching?.catch(() => undefined);
    await this.current?.close().catch(() => undefined);
    this.current = undefined;
    await new Promise<void>((resolve) => (this.blackhole ? this.blackhole.close(() => resolve()) : resolve()));
  }

  private async launch(): Promise<Browser> {
    const proxyPort = await this.blackholePort();
    const browser = await chromium.launch({
      executablePath: this.options.executablePath,
      headless: true,
      args: [
        ...SWITCHES,
        `--proxy-server=http://127.0.0.1:${proxyPort}`,
        '--proxy-bypass-list=<-loopback>', // loopback goes to the proxy too
        ...(this.options.args ?? []),
      ],
      // The service stops Chromium itself, in order, on SIGTERM/SIGINT.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    this.launches += 1;
    browser.on('disconnected', () => {
      if (this.current === browser) this.current = undefined;
    });
    this.current = browser;
    return browser;
  }

  private noteTarget(target: string): void {
    if (this.unroutedTargets.size < MAX_TARGETS) this.unroutedTargets.add(target);
  }

  private async blackholePort(): Promise<number> {
    if (!this.blackhole) {
      const server = net.createServer((socket) => {
        this.unroutedConnections += 1;
        socket.setTimeout(5_000, () => socket.destroy());
        socket.on('error', () => undefined);
        socket.once('data', (chunk: Buffer) => {
          this.noteTarget(proxyTarget(chunk.subarray(0, 2048).toString('latin1')));
          socket.destroy();
        });
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      this.blackhole = server;
    }
    return (this.blackhole.address() as net.AddressInfo).port;
  }
}
