// A stand-in for SearXNG in the Docker test (SearXNG is neither on npm nor in Debian): its JSON search API
// (GET /search?q=…&format=json → {query, results: [{url, title, content}]}) and /healthz, on port 8080.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS run by bare node in the container */
const http = require('node:http');

http
  .createServer((req, res) => {
    const url = new URL(req.url, 'http://searxng');
    if (url.pathname === '/healthz') return res.end('OK');
    if (url.pathname === '/search' && url.searchParams.get('format') === 'json') {
      const query = url.searchParams.get('q') ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          query,
          number_of_results: 1,
          results: [{ url: 'https://example.org/', title: `Result for ${query}`, content: 'A stand-in result.' }],
        }),
      );
    }
    res.writeHead(404).end();
  })
  .listen(8080, '0.0.0.0');
