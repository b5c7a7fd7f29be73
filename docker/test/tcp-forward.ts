// A plain TCP forwarder from 0.0.0.0 (a free port) to a server on the host's loopback, so that the containers reach
// it by this machine's IP: the fakes of the install test (fakes-main.ts) and the host benchmark's sign-in site
// (scripts/bench-host.ts).
import net from 'node:net';

export function forward(toUrl: string): Promise<number> {
  const target = new URL(toUrl);
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '0.0.0.0', () => resolve((server.address() as net.AddressInfo).port));
  });
}
