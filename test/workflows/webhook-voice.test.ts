// The webhook entry takes a voice note the way Telegram's does: Agent Request hands every accepted request to Voice
// to Text (the Assistant Channel operation Telegram's entry uses, on the same Assistant Transcription credential),
// whose text goes on to Resolve Identity and whose refusal is answered by a Respond to Webhook node; every later
// node reads the request after Voice to Text, so the transcript (not the empty message of a voice body) is stored
// and run. Pure JSON checks, no n8n.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

interface WorkflowNode {
  name: string;
  type: string;
  parameters: Record<string, unknown>;
  credentials?: Record<string, { id: string; name: string }>;
}
interface Workflow {
  nodes: WorkflowNode[];
  connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}

const read = (file: string) =>
  JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'workflows', file), 'utf8')) as Workflow;
const webhook = read('assistant-webhook.json');
const telegram = read('assistant-telegram.json');
const node = (workflow: Workflow, name: string) => workflow.nodes.find((candidate) => candidate.name === name)!;
const targets = (workflow: Workflow, name: string) =>
  workflow.connections[name].main.map((output) => output.map((link) => link.node));

describe('the webhook entry routes a voice body through Voice to Text', () => {
  it('sends every accepted request through the voice operation Telegram uses, on the same credential', () => {
    // The gate (Admit Caller) comes first: a stranger's voice is never transcribed.
    expect(targets(webhook, 'Agent Request')).toEqual([['Admit Caller']]);
    expect(targets(webhook, 'Admit Caller')).toEqual([
      ['Voice to Text'],
      ['Answer the Stranger'],
      ['Describe Gate Failure'],
    ]);
    const voice = node(webhook, 'Voice to Text');
    const telegramVoice = node(telegram, 'Voice to Text');
    expect(voice.type).toBe(telegramVoice.type);
    expect(voice.parameters).toEqual({ operation: 'voiceToText', request: '={{ $json }}' });
    expect(voice.credentials).toEqual({
      assistantTranscriptionApi: telegramVoice.credentials!.assistantTranscriptionApi,
    });
  });

  it('goes on with the text to Resolve Identity, and answers a refusal with its status and envelope', () => {
    expect(targets(webhook, 'Voice to Text')).toEqual([['Resolve Identity'], ['Refuse Voice']]);
    const refuse = node(webhook, 'Refuse Voice');
    expect(refuse.type).toBe('n8n-nodes-base.respondToWebhook');
    expect(refuse.parameters).toEqual({
      respondWith: 'json',
      responseBody: '={{ $json.body }}',
      options: { responseCode: '={{ $json.statusCode }}' },
    });
  });

  it('reads the message, session and user after Voice to Text everywhere, never the raw request', () => {
    const beforeVoice = ['Voice to Text', 'Admit Caller', 'Answer the Stranger', 'Describe Gate Failure'];
    const later = webhook.nodes.filter(
      (candidate) => candidate.type !== 'n8n-nodes-base.stickyNote' && !beforeVoice.includes(candidate.name),
    );
    const withoutVoiceCheck = (text: string) => text.replaceAll("$('Agent Request').first().json.voice ?", '');
    for (const candidate of later) {
      expect(withoutVoiceCheck(JSON.stringify(candidate.parameters))).not.toContain("$('Agent Request')");
    }
    expect(node(webhook, 'Store Message').parameters.message).toBe("={{ $('Voice to Text').first().json.message }}");
  });

  it('answers a voice note with its transcript beside the reply or receipt, a typed message as before', () => {
    const voiceAware =
      "={{ $('Agent Request').first().json.voice ? { ...$json.body, transcript: $('Voice to Text').first().json.message } : $json.body }}";
    expect(node(webhook, 'Send Reply').parameters.responseBody).toBe(voiceAware);
    expect(node(webhook, 'Send Answer Receipt').parameters.responseBody).toBe(voiceAware);
  });
});
