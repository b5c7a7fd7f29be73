// Forwarding to an OpenAI-compatible provider: the request as the caller made it (model id without the caller
// suffix), the answer back as the provider gave it, JSON or a server-sent-event stream, its usage read on the way.
import type { ServerResponse } from 'node:http';
import { cutMessage, wasCut, type ModelCall } from './call';
import { GatewayError } from './errors';
import { errorMessageOf, usageOf, type ReportedUsage } from './usage';

export interface Forwarded {
  url: string;
  method: string;
  body?: RequestInit['body'];
  contentType?: string;
  /** Whether the caller asked for the usage chunk of a stream (else the one the gateway asked for is dropped). */
  callerWantsStreamUsage?: boolean;
}

/** Sends the request upstream; a provider that does not answer is a GatewayError. */
export async function sendUpstream(call: ModelCall, forwarded: Forwarded, signal: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { ...call.provider!.authHeaders() };
  if (forwarded.contentType) headers['content-type'] = forwarded.contentType;
  try {
    return await fetch(forwarded.url, { method: forwarded.method, headers, body: forwarded.body, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new GatewayError(
      'upstream_unreachable',
      `the model provider at ${call.provider!.baseUrl} did not answer (${cause?.code ?? cause?.message ?? (error as Error).message}); is it running?`,
    );
  }
}

/** Relays an error answer as it is, and records the provider's status and message. */
export async function relayError(call: ModelCall, response: Response, res: ServerResponse): Promise<void> {
  const text = await response.text();
  await call.end('failed', response.status, undefined, `${response.status}: ${errorMessageOf(text)}`);
  res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'application/json' });
  res.end(text);
}

/** A JSON answer: checked for a cut prompt, then relayed. */
export async function relayJson(call: ModelCall, response: Response, res: ServerResponse): Promise<void> {
  const text = await response.text();
  let usage: ReportedUsage | null = null;
  try {
    usage = usageOf(JSON.parse(text));
  } catch {
    // not JSON (e.g. a transcription as text): relayed without usage
  }
  if (usage && wasCut(call.measured, usage)) {
    const error = new GatewayError('prompt_cut', cutMessage(call, usage));
    await call.end('cut', error.status, usage, error.message);
    return sendError(res, error);
  }
  res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'application/json' });
  res.end(text);
  void call.end('ok', response.status, usage ?? undefined);
}

/** A stream: relayed event by event; the usage chunk read (and dropped if only the gateway asked for it). */
export async function relayEventStream(
  call: ModelCall,
  response: Response,
  res: ServerResponse,
  callerWantsUsage: boolean,
): Promise<void> {
  res.writeHead(response.status, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  let usage: ReportedUsage | null = null;
  let pending = '';
  const decoder = new TextDecoder();
  const relay = (event: string) => {
    const data = event.startsWith('data:') ? event.slice(5).trim() : '';
    if (data && data !== '[DONE]') {
      try {
        const chunk = JSON.parse(data) as { choices?: unknown[] };
        const found = usageOf(chunk);
        if (found) {
          usage = found;
          if (!callerWantsUsage && (chunk.choices?.length ?? 0) === 0) return;
        }
      } catch {
        // relayed as it is
      }
    }
    res.write(`${event}\n\n`);
  };
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(bytes, { stream: true }).replace(/\r\n/g, '\n');
    let at: number;
    while ((at = pending.indexOf('\n\n')) >= 0) {
      relay(pending.slice(0, at));
      pending = pending.slice(at + 2);
    }
  }
  if (pending.trim()) relay(pending.trim());
  res.end();
  if (usage && wasCut(call.measured, usage)) return call.end('cut', response.status, usage, cutMessage(call, usage));
  return call.end('ok', response.status, usage ?? undefined);
}

export function sendError(res: ServerResponse, error: GatewayError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(error.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(error.toJSON()));
}
