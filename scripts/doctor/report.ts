// doctor's verdict in plain words (one line a check, then what will not work), or as JSON; neither ever carries a
// secret: every line is checked against the settings' keys and a key found is masked.
import { recallLine } from './recall';
import { SPEED_OUTPUT_TOKENS, SPEED_PROMPT_TOKENS } from './speed';
import type { DoctorVerdict } from './verdict';

const OK = 'ok  ';
const BAD = 'FAIL';
const NOTE = 'note';

function chatLines(v: DoctorVerdict): string[] {
  const lines: string[] = [];
  if (!v.chat.reachable) return [`${BAD} chat model ${v.chatModel}: ${v.chat.problem}`];
  lines.push(`${OK} chat model ${v.chatModel}: reachable through the gateway`);
  const w = v.window!;
  if (w.window === null)
    lines.push(`${NOTE} window: ${w.source}; the agent's prompt is about ${w.agentPromptTokens} tokens`);
  else
    lines.push(
      `${w.fits ? OK : BAD} window: ${w.window} tokens (${w.source}); the agent's prompt is about ` +
        `${w.agentPromptTokens} tokens: ${w.fits ? 'it fits' : 'it does NOT fit'}`,
    );
  if (w.advice) lines.push(`     ${w.advice}`);
  if (v.chat.toolCalling === 'works') lines.push(`${OK} tool calling: works (one real tool-call round trip)`);
  else
    lines.push(
      `${BAD} tool calling: the model answered in plain text instead of calling the tool` +
        (v.chat.plainTextReply ? ` ("${v.chat.plainTextReply}")` : ''),
    );
  return lines;
}

function speedLine(v: DoctorVerdict): string {
  const s = v.speed;
  if (!v.chat.reachable) return `${NOTE} speed: not measured (the chat model is not reachable)`;
  if (s.problem) return `${BAD} speed: the probe failed: ${s.problem}`;
  if (!s.measured) return `${NOTE} speed: not measured (--quick)`;
  const probe = `${s.promptTokens} prompt and ${s.outputTokens} output tokens, asked ${SPEED_PROMPT_TOKENS}/${SPEED_OUTPUT_TOKENS}`;
  if (s.by === 'ollama')
    return `${OK} speed: prefill ${s.prefillTokensPerSecond ?? '?'} tokens/s, output ${s.outputTokensPerSecond ?? '?'} tokens/s (Ollama's timings; ${probe})`;
  return `${OK} speed: output at least ${s.outputTokensPerSecond ?? '?'} tokens/s (wall clock, prefill included; ${probe})`;
}

function judgeLines(v: DoctorVerdict): string[] {
  if (!v.judge.reachable) return [`${BAD} judge: ${v.judge.problem}`];
  if (v.judge.models.length === 0) return [`${BAD} judge: reachable, but it lists no model`];
  return v.judge.models.map(
    (m) =>
      `${OK} judge model ${m.name}: scored by ${m.method}` +
      (m.calibrated === null ? '' : m.calibrated ? ' (calibrated)' : ' (not calibrated: no logprobs)'),
  );
}

const optionalLine = (name: string, check: DoctorVerdict['embeddings']): string =>
  `${!check.configured ? NOTE : check.works ? OK : BAD} ${name}: ${check.configured && check.works ? `works (${check.detail})` : check.detail}`;

export function plainReport(v: DoctorVerdict): string {
  const lines = [
    ...chatLines(v),
    speedLine(v),
    ...judgeLines(v),
    optionalLine('embeddings', v.embeddings),
    recallLine(v.recall),
    optionalLine('transcription', v.transcription),
    '',
  ];
  if (v.missing.length === 0) lines.push('Every assistant feature can work with this setup.');
  else {
    lines.push('What will not work with this setup:');
    for (const m of v.missing) lines.push(`  - ${m.feature}: ${m.why}`);
  }
  lines.push(
    '',
    v.chatModelFails ? 'Verdict: the chat model FAILS; the assistant cannot work.' : 'Verdict: the chat model works.',
  );
  return lines.join('\n');
}

export function jsonReport(v: DoctorVerdict): string {
  return JSON.stringify(v, null, 2);
}

/** Any secret in the text replaced by "***". */
export function withoutSecrets(text: string, secrets: string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join('***'), text);
}
