// n8n external hook (EXTERNAL_HOOK_FILES): answers what n8n 2.41.1 would answer itself about a webhook body before
// any workflow runs, in the envelope each of the project's webhooks documents.
//
// n8n reads and parses a webhook body (application/json, text/plain, form, XML) before the workflow starts
// (webhook-helpers parseRequestBody → middlewares/body-parser parseBody); there a body over N8N_PAYLOAD_SIZE_MAX is
// n8n's 500 "There was a problem executing the workflow" and malformed JSON its 422 {"code": 422, "message": "Failed
// to parse request body", "hint"}, whatever the workflow's own envelope. No setting changes those answers, so this
// hook, loaded by n8n at start, reads such a body first (the same way n8n does: gunzip/inflate, n8n's size limit)
// and refuses it in the route's envelope:
//   POST /webhook/v1/systemone, /webhook/v1/models — the judge server's (docs/JUDGE.md, "Errors"): 413
//       request_too_large, 400 for JSON nested deeper than 64 levels, 422 naming ["body"] for malformed JSON, with
//       X-Request-Id, x-typesafe-request-id and Server-Timing;
//   POST /webhook/agent — the assistant's {"error": {"code", "message", "field"}}: 413 body_too_large, 400
//       invalid_request for malformed JSON and for nesting deeper than 64 levels;
//   any other webhook — only the size: 413 in n8n's own envelope {"code": 413, "message"} instead of its 500 (and
//       400 for a gzip/deflate body that cannot be inflated, also n8n's 500).
// After a refusal the rest of the body is read and dropped (up to 4 times the limit), so that a client still sending
// gets the answer.
// A body that passes is handed to n8n as read (req.rawBody, which n8n's readRawBody then uses), so n8n and the
// workflow see exactly what they would have. Bodies n8n leaves to the node (multipart, binary types) are not read.
// Plain CommonJS without dependencies: n8n loads it by absolute path, in Docker from the mounted runtime folder.
// Types: webhook-guard.d.ts. Tests: test/scripts/webhook-guard.test.ts, test/e2e/webhook-protection.test.ts.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose (see above) */
const { randomUUID } = require('node:crypto');
const zlib = require('node:zlib');

/** The judge server's default limits.maxJsonDepth; the assistant's webhook uses the same. */
const MAX_JSON_DEPTH = 64;
/** n8n's default N8N_PAYLOAD_SIZE_MAX, in MiB. */
const DEFAULT_PAYLOAD_SIZE_MAX_MB = 16;
/** Request ids the judge server keeps (judge/src/server/index.ts). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The refusals of the judge server (judge/src/protocol/errors.ts), word for word. */
function systemOneAnswer(refusal, req, started) {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  const headers = {
    'x-request-id': requestId,
    'x-typesafe-request-id': requestId,
    'server-timing': `total;dur=${(performance.now() - started).toFixed(2)}`,
  };
  if (refusal.kind === 'too_large') {
    const message = `The request body is larger than ${refusal.limit} bytes.`;
    return { status: 413, headers, body: { detail: { error_type: 'request_too_large', message } } };
  }
  if (refusal.kind === 'too_deep') {
    const message = `The body nests JSON deeper than ${refusal.limit} levels.`;
    return { status: 400, headers, body: { detail: { error_type: 'invalid_request_error', message } } };
  }
  const issue = { loc: ['body'], msg: `The body is not valid JSON: ${refusal.reason}`, type: 'json_invalid' };
  return { status: 422, headers, body: { detail: [issue], error_type: 'invalid_request_error' } };
}

/** The assistant's envelope (assistant-core httpError; nodes/AssistantTrigger answers the rest in it). */
function assistantAnswer(refusal) {
  const error = (status, code, message) => ({ status, headers: {}, body: { error: { code, message, field: 'body' } } });
  if (refusal.kind === 'too_large') {
    return error(413, 'body_too_large', `body: must be at most ${refusal.limit} bytes`);
  }
  if (refusal.kind === 'too_deep') {
    return error(400, 'invalid_request', `body: must not nest JSON deeper than ${refusal.limit} levels`);
  }
  return error(400, 'invalid_request', `body: is not valid JSON (${refusal.reason})`);
}

/** n8n's own envelope, for webhooks of other workflows: only the size (and a body that cannot be inflated). */
function n8nAnswer(refusal) {
  if (refusal.kind === 'too_large') {
    return {
      status: 413,
      headers: {},
      body: { code: 413, message: `The request body is larger than ${refusal.limit} bytes.` },
    };
  }
  return {
    status: 400,
    headers: {},
    body: { code: 400, message: `The request body cannot be read: ${refusal.reason}` },
  };
}

/** Webhook path (after /webhook/ or /webhook-test/) → how its refusals are answered; others get n8nAnswer. */
function answererFor(webhookPath) {
  if (webhookPath === 'v1/systemone' || webhookPath === 'v1/models') return systemOneAnswer;
  if (webhookPath === 'agent') return assistantAnswer;
  return undefined;
}

/** Deepest nesting of brackets in JSON text (strings skipped), as the judge server counts it. */
function jsonNestingDepth(text) {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123 /* [ { */) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 93 || c === 125 /* ] } */) depth--;
  }
  return deepest;
}

/** The types n8n parses itself before the workflow (webhook-helpers isParsableContentType). */
function isParsedByN8n(mediaType) {
  return (
    mediaType.startsWith('application/json') ||
    mediaType.startsWith('text/plain') ||
    mediaType.startsWith('application/x-www-form-urlencoded') ||
    mediaType.endsWith('/xml') ||
    mediaType.endsWith('+xml')
  );
}

/** n8n's reading of a Content-Type (@n8n/backend-network parseContentType): the type, and the charset. */
function contentTypeOf(header) {
  if (typeof header !== 'string' || header === '') return undefined;
  const [type, ...parameters] = header.split(';');
  let charset = 'utf-8';
  for (const parameter of parameters) {
    const eq = parameter.indexOf('=');
    if (eq !== -1 && parameter.slice(0, eq).trim().toLowerCase() === 'charset') {
      charset = parameter
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
    }
  }
  return { mediaType: type.toLowerCase(), charset };
}

/** The webhook path of a request to a production or test webhook, else undefined. */
function webhookPathOf(url, prefixes) {
  const raw = typeof url === 'string' ? url : '/';
  const q = raw.indexOf('?');
  const pathname = q === -1 ? raw : raw.slice(0, q);
  for (const prefix of prefixes) {
    if (pathname.startsWith(prefix)) return pathname.slice(prefix.length).replace(/\/+$/, '');
  }
  return undefined;
}

function send(res, answer) {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...answer.headers,
  });
  res.end(text);
}

/**
 * A `(req, res, next)` that refuses a webhook body n8n would refuse with its own answer, in the route's envelope;
 * everything else goes to `next()` (with the body read into req.rawBody when it read it).
 */
function createWebhookGuard(options = {}) {
  const maxBytes = options.maxBytes ?? DEFAULT_PAYLOAD_SIZE_MAX_MB * 1024 * 1024;
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const prefixes = (options.endpoints ?? ['webhook', 'webhook-test']).map((endpoint) => `/${endpoint}/`);

  return function webhookGuard(req, res, next) {
    const started = performance.now();
    const webhookPath = webhookPathOf(req.url, prefixes);
    const contentType = contentTypeOf(req.headers['content-type']);
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
    if (webhookPath === undefined || !contentType || !hasBody || !isParsedByN8n(contentType.mediaType)) {
      next();
      return;
    }
    const answerer = answererFor(webhookPath);
    const refuse = (refusal) => send(res, (answerer ?? n8nAnswer)(refusal, req, started));

    const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
    const inflate = encoding === 'gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : null;
    const stream = inflate ? req.pipe(inflate) : req;
    const chunks = [];
    let size = 0;
    let settled = false;
    // After a refusal the rest of the body is read and dropped, so that a client still sending gets the answer (a
    // connection closed mid-upload is an EPIPE or a reset to it, not a 413); past 4 times the limit it is cut.
    const discardRest = () => {
      settled = true;
      if (inflate) req.unpipe(inflate);
      stream.removeAllListeners('data');
      let discarded = 0;
      req.on('data', (chunk) => {
        discarded += chunk.length;
        if (discarded > 4 * maxBytes) req.destroy();
      });
      req.resume();
    };

    const declared = Number(req.headers['content-length']);
    if (!inflate && Number.isFinite(declared) && declared > maxBytes) {
      // Refused from Content-Length, before keeping any of it (as the judge server does).
      discardRest();
      refuse({ kind: 'too_large', limit: maxBytes });
      return;
    }
    stream.on('data', (chunk) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        discardRest();
        refuse({ kind: 'too_large', limit: maxBytes });
        return;
      }
      chunks.push(chunk);
    });
    stream.on('error', (error) => {
      if (settled) return;
      discardRest();
      if (inflate) refuse({ kind: 'invalid', reason: `the ${encoding} data is corrupt (${error.message})` });
      else res.destroy();
    });
    req.on('close', () => {
      // The client went away mid-body: nothing to answer. (A whole body closes too, maybe before inflating ends.)
      if (!settled && !req.complete) {
        settled = true;
        if (inflate) req.unpipe(inflate);
      }
    });
    stream.on('end', () => {
      if (settled) return;
      settled = true;
      const raw = Buffer.concat(chunks);
      if (answerer && contentType.mediaType === 'application/json' && raw.length > 0) {
        let text;
        try {
          text = raw.toString(contentType.charset);
        } catch {
          refuse({ kind: 'invalid', reason: `the charset ${JSON.stringify(contentType.charset)} is not supported` });
          return;
        }
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        if (jsonNestingDepth(text) > maxDepth) {
          refuse({ kind: 'too_deep', limit: maxDepth });
          return;
        }
        try {
          JSON.parse(text);
        } catch (error) {
          refuse({ kind: 'invalid', reason: error.message });
          return;
        }
      }
      // n8n's rawBodyReader reads the body only when req.rawBody is not set: it takes this one.
      req.rawBody = raw;
      next();
    });
  };
}

/** Puts the guard in front of everything the HTTP server answers (n8n's Express app included). */
function installWebhookGuard(httpServer, guard) {
  const listeners = httpServer.listeners('request');
  httpServer.removeAllListeners('request');
  httpServer.on('request', (req, res) => {
    guard(req, res, () => {
      for (const listener of listeners) listener.call(httpServer, req, res);
    });
  });
}

/** Settings from n8n's environment: N8N_PAYLOAD_SIZE_MAX (MiB) and the webhook endpoints' names. */
function guardOptionsFromEnv(env = process.env) {
  const megabytes = Number(env.N8N_PAYLOAD_SIZE_MAX || DEFAULT_PAYLOAD_SIZE_MAX_MB);
  return {
    maxBytes: Math.floor((Number.isFinite(megabytes) && megabytes > 0 ? megabytes : 16) * 1024 * 1024),
    maxDepth: MAX_JSON_DEPTH,
    endpoints: [env.N8N_ENDPOINT_WEBHOOK || 'webhook', env.N8N_ENDPOINT_WEBHOOK_TEST || 'webhook-test'],
  };
}

// Only functions and the hook object are exported: n8n reads every exported object as {resource: {operation: [fn]}}.
module.exports = {
  n8n: {
    ready: [
      async function installOnReady(server) {
        const httpServer = server && server.server;
        if (!httpServer || typeof httpServer.listeners !== 'function') {
          console.error('webhook-guard: n8n handed no HTTP server to n8n.ready; webhook bodies are not guarded');
          return;
        }
        installWebhookGuard(httpServer, createWebhookGuard(guardOptionsFromEnv()));
      },
    ],
  },
  createWebhookGuard,
  installWebhookGuard,
  guardOptionsFromEnv,
  jsonNestingDepth,
};
