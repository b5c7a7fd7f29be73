// The main agent's prompt prefix, computed (not timed): a scripted ten-turn conversation rendered through the chat
// templates of Qwen2.5, Llama 3.1 and Mistral v3 with the agent's real tools and the product's own system prompt,
// context block and history window (scripts/prompt-prefix.ts).
import { describe, expect, it } from 'vitest';
import {
  agentTools,
  conversationRequests,
  prefixShares,
  render,
  TEMPLATES,
  toolSchemasByGroup,
  type TemplateName,
} from '../../scripts/prompt-prefix';

const names = Object.keys(TEMPLATES) as TemplateName[];

describe('the prompt prefix', () => {
  it('has one system message for every request of the conversation', () => {
    const systems = new Set(
      conversationRequests('after')
        .flat()
        .map((request) => request[0].content),
    );
    expect(systems.size).toBe(1);
    expect([...systems][0]).not.toMatch(/local time is|remember that may be relevant/);
  });

  it('renders the real tools into each template', () => {
    const tools = agentTools();
    expect(tools.length).toBeGreaterThan(40);
    for (const name of names)
      expect(render(name, conversationRequests('after')[0][0], tools)).toContain('"remember_memory"');
  });

  it.each(['Qwen2.5', 'Llama 3.1'] as const)(
    '%s: turns 2 and 10 start with at least 80 % of the request before them (it was under 10 %)',
    (name) => {
      const after = prefixShares(name, 'after');
      expect(after.acrossTurns[2]).toBeGreaterThanOrEqual(0.8);
      expect(after.acrossTurns[10]).toBeGreaterThanOrEqual(0.8);
      expect(prefixShares(name, 'before').acrossTurns[2]).toBeLessThan(0.1);
    },
  );

  it.each(names)('%s: the request after a tool call starts with at least 80 % of the one before it', (name) => {
    expect(prefixShares(name, 'after').withinTurn).toBeGreaterThanOrEqual(0.8);
  });

  it('counts every agent tool in exactly one registry group (the figures of the tool-token design)', () => {
    const groups = toolSchemasByGroup();
    expect(groups.reduce((sum, group) => sum + group.tools, 0)).toBe(agentTools().length);
    expect(groups.reduce((sum, group) => sum + group.chars, 0)).toBe(
      agentTools().reduce((sum, tool) => sum + JSON.stringify(tool).length, 0),
    );
    for (const group of groups) expect(group.tools, group.group).toBeGreaterThan(0);
  });
});
