// Writes judge/test/onnx/chat-templates/cases.json: each case's user message as the ONNX backend builds it (the
// rendered state, then the question without its answer cue). Run: npx tsx judge/tools/chat-templates/write-cases.ts
// then /usr/bin/python3 judge/tools/chat-templates/render_expected.py.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { questionBody } from '../../src/backends/onnx/chat-template';
import { renderRequest } from '../../src/engine/render';
import { CHAT_CASES, TEMPLATE_FIXTURES } from './cases';

export const FIXTURE_DIR = join(__dirname, '../../test/onnx/chat-templates');

const cases = CHAT_CASES.map(({ name, request }) => {
  const rendered = renderRequest(request);
  return { name, content: rendered.prefix + questionBody(rendered.questions[0].suffix) };
});
const templates = TEMPLATE_FIXTURES.map(({ file, tokens, source }) => ({ file, tokens, source }));
writeFileSync(join(FIXTURE_DIR, 'cases.json'), `${JSON.stringify({ templates, cases }, null, 2)}\n`);
