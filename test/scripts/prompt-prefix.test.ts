// The main agent's prompt prefix, computed (not timed): a scripted ten-turn conversation rendered through the chat
// templates of Qwen2.5, Llama 3.1 and Mistral v3 with the agent's real tools (its 7 routers) and the product's own system prompt,
// context block and history window (scripts/prompt-prefix.ts).
import { describe, expect, it } from 'vitest';
import {
  agentTools,
  conversationRequests,
  prefixShares,
  render,
  TEMPLATES,
  toolSchemasByGroup,
  toolsBeforeRouters,
  type TemplateName,
} from '../../scripts/prompt-prefix';
import { estimateTokens } from 'assistant-core';
import { TOOL_GROUPS, TOOL_REGISTRY } from '../../assistant/src/tools/registry';
import { TOOL_ROUTERS } from '../../assistant/src/tools/routers';

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

  it('renders the real tools (the 7 routers) into each template', () => {
    const tools = agentTools();
    expect(tools.map((tool) => tool.function.name)).toEqual(TOOL_GROUPS.map((group) => TOOL_ROUTERS[group].name));
    for (const name of names) {
      const rendered = render(name, conversationRequests('after')[0][0], tools);
      expect(rendered).toContain('"memory"');
      expect(rendered).toContain('remember_memory(content, people?)');
    }
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

  it('counts every registry tool in exactly one group, before and after the routers (the tool-token figures)', () => {
    const groups = toolSchemasByGroup();
    expect(groups.reduce((sum, group) => sum + group.tools, 0)).toBe(TOOL_REGISTRY.length);
    expect(toolsBeforeRouters()).toHaveLength(TOOL_REGISTRY.length);
    expect(groups.reduce((sum, group) => sum + group.before, 0)).toBe(
      toolsBeforeRouters().reduce((sum, tool) => sum + JSON.stringify(tool).length, 0),
    );
    expect(groups.reduce((sum, group) => sum + group.after, 0)).toBe(
      agentTools().reduce((sum, tool) => sum + JSON.stringify(tool).length, 0),
    );
    for (const group of groups) expect(group.after, group.group).toBeLessThan(group.before);
  });

  it("keeps a plain turn's tool schemas within 2,000 tokens (issue 41's target; 50 tools took about 5,400)", () => {
    expect(estimateTokens(JSON.stringify(agentTools()))).toBeLessThanOrEqual(2000);
    expect(estimateTokens(JSON.stringify(toolsBeforeRouters()))).toBeGreaterThan(5000);
  });
});
