// The expert catalogue (data in this repository): the shipped entries are valid against the main agent's real tools
// (those its routers reach in workflows/, so a renamed tool breaks this test), and validateCatalogue names each
// kind of problem with the entry's id and the field.
import { describe, expect, it, vi } from 'vitest';
import {
  ASSISTANT_TOOLS,
  EXPERT_PROVIDERS,
  loadCatalogue,
  RESERVED_EXPERT_IDS,
  SHIPPED_EXPERTS,
  validateCatalogue,
  type CatalogueRules,
} from '../../src';
import { routedTools } from '../tools/routed-tools';

const PROVIDERS = ['openai', 'anthropic', 'gemini', 'mistral', 'deepseek', 'openrouter', 'ollama'];
const RESERVED = ['researcher', 'planner', 'analyst'];

/** The main agent's tools: those its router tools reach. */
const agentTools = (): string[] =>
  routedTools()
    .map((tool) => tool.name)
    .sort();

/** Its tools without the ask_<expert> delegation tools. */
const agentToolsForExperts = () => agentTools().filter((tool) => !tool.startsWith('ask_') || tool === 'ask_user');

const rules: CatalogueRules = { tools: agentTools(), providers: PROVIDERS, reserved: RESERVED };

const PROMPT =
  'You are the Test Expert, an expert the assistant delegates tests to. ' +
  'Use web_search to find things and read_page to read them before relying on them. '.repeat(6) +
  'Never invent facts, ask with ask_user when you cannot go on, and keep secrets out of your answer.';

/** A small valid entry; each bad one below changes one field. */
const good = (overrides: Record<string, unknown> = {}) => ({
  id: 'test-expert',
  name: 'Test Expert',
  description: 'Delegate to it when a test needs an expert.',
  systemPrompt: PROMPT,
  tools: ['web_search', 'read_page', 'ask_user'],
  suggestedModel: { provider: 'openai', model: 'gpt-4.1-mini' },
  tags: ['test'],
  ...overrides,
});

describe('expert catalogue', () => {
  it('ships at least 12 valid experts against the agent’s real tools and the providers', () => {
    const catalogue = loadCatalogue();
    expect(catalogue.length).toBeGreaterThanOrEqual(12);
    expect(validateCatalogue(catalogue, rules)).toEqual([]);
    const ids = catalogue.map((expert) => expert.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const expert of catalogue) {
      expect(RESERVED).not.toContain(expert.id);
      expect(expert.tools).not.toContain('forget_everything');
      expect(PROVIDERS).toContain(expert.suggestedModel.provider);
      for (const tool of expert.tools) expect(agentTools()).toContain(tool);
    }
  });

  it('checks the shipped data against the same tools, providers and reserved ids as the agent has', () => {
    expect([...ASSISTANT_TOOLS].sort()).toEqual(agentToolsForExperts());
    expect([...EXPERT_PROVIDERS].sort()).toEqual([...PROVIDERS].sort());
    expect([...RESERVED_EXPERT_IDS].sort()).toEqual([...RESERVED].sort());
    expect(SHIPPED_EXPERTS.map((expert) => `ask_${expert.id}`).every((tool) => agentTools().includes(tool))).toBe(true);
  });

  it('hands out copies, so a caller cannot change the shipped data', () => {
    const first = loadCatalogue();
    first[0].tools.push('forget_everything');
    first[0].suggestedModel.model = 'changed';
    const again = loadCatalogue();
    expect(again[0].tools).not.toContain('forget_everything');
    expect(again[0].suggestedModel.model).not.toBe('changed');
  });

  it('accepts a small good entry', () => {
    expect(validateCatalogue([good()], rules)).toEqual([]);
  });

  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['an unknown tool', { tools: ['web_search', 'send_email'] }, 'tools', /"send_email" is not a tool/],
    ['a forbidden tool', { tools: ['ask_user', 'forget_everything'] }, 'tools', /"forget_everything" may not/],
    ['a delegation tool', { tools: ['ask_researcher'] }, 'tools', /delegates to another expert/],
    ['a tool listed twice', { tools: ['ask_user', 'ask_user'] }, 'tools', /listed twice/],
    ['no tools', { tools: [] }, 'tools', /at least one tool/],
    ['a reserved id', { id: 'planner' }, 'id', /reserved/],
    ['a bad id', { id: 'Travel_Planner' }, 'id', /kebab-case/],
    ['an id ending in a hyphen', { id: 'travel-' }, 'id', /kebab-case/],
    ['a missing id', { id: '' }, 'id', /missing/],
    ['a missing name', { name: ' ' }, 'name', /missing/],
    ['a missing description', { description: undefined }, 'description', /missing/],
    ['an empty prompt', { systemPrompt: '' }, 'systemPrompt', /missing/],
    ['a too short prompt', { systemPrompt: 'You help. Never invent facts.' }, 'systemPrompt', /too short/],
    ['a too long prompt', { systemPrompt: 'word '.repeat(251) }, 'systemPrompt', /too long/],
    [
      'an unknown provider',
      { suggestedModel: { provider: 'acme', model: 'x-1' } },
      'suggestedModel.provider',
      /must be one of/,
    ],
    ['a missing model', { suggestedModel: { provider: 'openai', model: '' } }, 'suggestedModel.model', /missing/],
    [
      'a model name with spaces',
      { suggestedModel: { provider: 'openai', model: 'gpt 4' } },
      'suggestedModel.model',
      /without spaces/,
    ],
    ['no suggested model', { suggestedModel: undefined }, 'suggestedModel', /missing/],
    ['no tags', { tags: [] }, 'tags', /at least one tag/],
  ];

  it.each(cases)('names %s with the entry and the field', (_label, overrides, field, reason) => {
    const problems = validateCatalogue([good(overrides)], rules);
    expect(problems).toHaveLength(1);
    const id = overrides.id === '' ? '#0' : (overrides.id ?? 'test-expert');
    expect(problems[0]).toMatchObject({ id, field });
    expect(problems[0].reason).toMatch(reason);
  });

  it('names a duplicate id on the second entry', () => {
    const problems = validateCatalogue([good(), good({ name: 'Other' })], rules);
    expect(problems).toEqual([{ id: 'test-expert', field: 'id', reason: expect.stringMatching(/used by another/) }]);
  });

  it('names an entry that is not an object by its index, and every problem of an entry', () => {
    expect(validateCatalogue([good(), 'nonsense'], rules)).toEqual([
      { id: '#1', field: 'entry', reason: 'must be an object' },
    ]);
    const problems = validateCatalogue(
      [good({ tools: ['forget_everything'], suggestedModel: { provider: 'x' } })],
      rules,
    );
    expect(problems.map((problem) => problem.field)).toEqual([
      'tools',
      'suggestedModel.provider',
      'suggestedModel.model',
    ]);
  });

  it('throws an AssistantInputError naming the first problem if the shipped data are invalid', async () => {
    vi.resetModules();
    vi.doMock('../../src/experts/catalogue.json', () => ({
      default: [good(), good({ id: 'bad-expert', tools: ['send_email'] }), good({ id: 'planner' })],
    }));
    try {
      const { loadCatalogue: loadBad } = await import('../../src/experts/catalogue');
      const errors = await import('../../src/errors');
      expect(() => loadBad()).toThrow(errors.AssistantInputError);
      expect(() => loadBad()).toThrow('catalogue[bad-expert].tools: "send_email" is not a tool of the assistant');
    } finally {
      vi.doUnmock('../../src/experts/catalogue.json');
      vi.resetModules();
    }
    expect(() => loadCatalogue()).not.toThrow();
  });
});
