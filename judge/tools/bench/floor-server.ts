// The floor the judge server is measured against: a bare node:http server doing the same JSON work per request
// (read the body, JSON.parse it, JSON.stringify an answer of the same shape and size), and nothing else: no
// routing, keys, validation, rendering, admission, usage or logs.
import { createServer, type Server } from 'node:http';

/** Listens on 127.0.0.1 (a free port); every POST answers `answer` (the judge's own answer to the bench body). */
export function startFloorServer(answer: unknown): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const text = JSON.stringify(answer);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${address.port}`, server });
    });
  });
}
