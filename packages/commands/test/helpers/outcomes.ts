// Tools whose every result is checked against the typed outcome: the tool's own outcome schema and
// ToolOutcome. A suite that builds its tools through `checkedTools` fails at the first result that
// is not one, and `outcomeLog` says what the suite's results covered.
import { expect } from 'vitest';
import { z } from 'zod';
import { TOOL_OUTCOMES, ToolOutcome } from '../../src/outcome';
import type { HarnessTool } from '../../src/tool';

/** What the checked tools of this test file have returned so far. */
export const outcomeLog = {
  checked: 0,
  /** Every status seen, and for a batch every status of its calls. */
  statuses: new Set<string>(),
};

/** `tools`, each checking every result it returns. */
export function checkedTools(tools: readonly HarnessTool[]): HarnessTool[] {
  return tools.map((tool) => ({
    ...tool,
    async execute(input, ctx) {
      const result = await tool.execute(input, ctx);
      expectOutcome(tool.name, result);
      return result;
    },
  }));
}

/** Asserts that `result` parses as an outcome of `tool`, and logs its statuses. */
export function expectOutcome(tool: string, result: unknown): void {
  const own = Object.hasOwn(TOOL_OUTCOMES, tool)
    ? TOOL_OUTCOMES[tool as keyof typeof TOOL_OUTCOMES]
    : undefined;
  expect(own, `${tool} has an outcome schema of its own`).toBeDefined();
  for (const schema of [own ?? ToolOutcome, ToolOutcome]) {
    const read = schema.safeParse(result);
    expect(
      read.success,
      read.success
        ? ''
        : `${tool} returned ${JSON.stringify(result).slice(0, 400)}\n${z.prettifyError(read.error)}`,
    ).toBe(true);
  }
  outcomeLog.checked++;
  const parsed = ToolOutcome.parse(result);
  outcomeLog.statuses.add(parsed.status);
  if (parsed.status === 'batch') for (const r of parsed.results) outcomeLog.statuses.add(`batch:${r.status}`);
}
