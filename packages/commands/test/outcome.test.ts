// The typed outcome: one zod schema per variant, one union per tool, and the MCP outputSchema
// generated from them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../src/define-tool';
import { createHostCommandTools } from '../src/host-command-tools';
import { createLoomAuthoringTools } from '../src/loom-authoring-tools';
import { registerMcpTools, toolOutputSchema } from '../src/mcp';
import { TOOL_OUTCOMES, ToolOutcome } from '../src/outcome';
import { createRun } from '../src/run';

const listing = {
  outputId: 'out-run-1',
  status: 'ok',
  notice: 'n',
  entries: [{ name: 'repo.log', signature: 'repo.log()  [read, global]', readOnlyGranted: true }],
  hidden: 0,
  omitted: 0,
  compacted: 0,
};
const lost = {
  outputId: 'out-run-2',
  status: 'failed_to_deliver',
  landed: 'unknown',
  code: 'answer_lost',
  command: 'repo.tag',
  hint: 'Check before repeating it.',
};
const composed = {
  outputId: 'out-run-3',
  status: 'ok',
  kind: 'loom-authored',
  receipt: {
    loom_id: 'loom-1',
    request_id: 'req-1',
    version: 1,
    created: true,
    component_ids: ['c1'],
    operation_ids: ['op1'],
    displaced: [],
  },
  replayed: false,
  current_version: 1,
  displaced: [],
};

describe('ToolOutcome', () => {
  it('names an outcome schema for every tool the package creates', () => {
    const names = [
      ...createHostCommandTools({ config: undefined, alwaysRegister: true }),
      ...createLoomAuthoringTools({ config: undefined, alwaysRegister: true }),
    ].map((t) => t.name);
    expect(Object.keys(TOOL_OUTCOMES).sort()).toEqual([...names].sort());
  });

  it('accepts a result under its own tool’s schema only: a listing is no run_command outcome', () => {
    expect(TOOL_OUTCOMES.list_commands.safeParse(listing).success).toBe(true);
    expect(TOOL_OUTCOMES.run_command.safeParse(listing).success).toBe(false);
    expect(TOOL_OUTCOMES.loom_compose.safeParse(composed).success).toBe(true);
    expect(TOOL_OUTCOMES.list_commands.safeParse(composed).success).toBe(false);
    expect(ToolOutcome.safeParse(listing).success && ToolOutcome.safeParse(composed).success).toBe(true);
  });

  it('keeps each code with its landing: answer_lost lands unknown, every other code lands no', () => {
    expect(ToolOutcome.safeParse(lost).success).toBe(true);
    expect(ToolOutcome.safeParse({ ...lost, landed: 'no' }).success).toBe(false);
    expect(ToolOutcome.safeParse({ ...lost, code: 'busy' }).success).toBe(false);
  });

  it('refuses a field no variant declares, and a status no variant has', () => {
    expect(ToolOutcome.safeParse({ ...listing, secret: 'x' }).success).toBe(false);
    expect(ToolOutcome.safeParse({ ...listing, status: 'authored' }).success).toBe(false);
  });

  it('tells a withheld summary from an answered one: a withheld summary carries nothing of the answer', () => {
    const executed = {
      outputId: 'out-run-4',
      status: 'executed',
      command: 'files.read',
      outcome: { withheld: true, mayHaveLanded: false },
      entry: { status: 'withheld', reasonCode: 'cfc_ceiling_exceeded' },
      truncated: false,
    };
    expect(ToolOutcome.safeParse(executed).success).toBe(true);
    expect(ToolOutcome.safeParse({ ...executed, outcome: { ...executed.outcome, ok: true } }).success).toBe(
      false,
    );
  });
});

describe('toolOutputSchema', () => {
  it('is an object at its root, its variants under oneOf (a call tool: its reply and a batch reply under anyOf), and no $schema: what MCP asks of an outputSchema', () => {
    for (const name of Object.keys(TOOL_OUTCOMES)) {
      const schema = toolOutputSchema(name);
      expect(schema.type, name).toBe('object');
      const variants = name.startsWith('run_') ? schema.anyOf : schema.oneOf;
      expect(Array.isArray(variants), name).toBe(true);
      expect(schema).not.toHaveProperty('$schema');
    }
  });

  it('is the same object on every call, and the whole ToolOutcome for a tool of another kind', () => {
    expect(toolOutputSchema('run_command')).toBe(toolOutputSchema('run_read_command'));
    expect(toolOutputSchema('someone_elses_tool').anyOf).toBeDefined();
  });

  it('accepts what the schema accepts when an MCP client’s validator (the SDK’s Ajv) reads it', () => {
    const ajv = new AjvJsonSchemaValidator();
    const listCommands = ajv.getValidator(toolOutputSchema('list_commands'));
    expect(listCommands(listing).valid).toBe(true);
    expect(listCommands(lost).valid).toBe(true);
    expect(listCommands(composed).valid).toBe(false);
    expect(listCommands({ ...listing, secret: 'x' }).valid).toBe(false);
    const runCommand = ajv.getValidator(toolOutputSchema('run_command'));
    const batch = { ok: false, results: [{ ok: false, command: 'repo.tag', code: 'answer_lost' }] };
    expect(runCommand(batch).valid).toBe(true);
    expect(runCommand({ ok: true, exit: 0, output: 'done' }).valid).toBe(true);
    expect(runCommand({ ...batch, results: [listing] }).valid).toBe(false);
    expect(runCommand({ ok: true, outputId: 'out-1' }).valid).toBe(false);
  });
});

describe('registerMcpTools and the outcome', () => {
  /** A server with one tool named `name` answering `result`, and a client connected to it. */
  async function serve(name: string, result: unknown) {
    const tool = defineTool({
      name,
      description: 'd',
      input: z.strictObject({}),
      effect: 'read',
      annotations: {
        title: name,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      execute: async () => result as ToolOutcome,
    });
    const run = createRun({ mode: 'disabled' });
    const server = new McpServer({ name: 'test', version: '0.0.0' });
    registerMcpTools(server, [tool], () => ({ run }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'c', version: '0.0.0' });
    await Promise.all([server.connect(a), client.connect(b)]);
    return { client, close: () => Promise.all([client.close(), server.close()]) };
  }

  it('lists each tool with the outputSchema generated for it', async () => {
    const { client, close } = await serve('list_commands', listing);
    const [listed] = (await client.listTools()).tools;
    expect(listed?.outputSchema).toEqual(
      expect.objectContaining({ type: 'object', oneOf: toolOutputSchema('list_commands').oneOf }),
    );
    const res = await client.callTool({ name: 'list_commands', arguments: {} });
    expect(res.structuredContent).toEqual(listing);
    await close();
  });

  it('sends a result outside its tool’s outcome as an error, never as structuredContent', async () => {
    const { client, close } = await serve('list_commands', composed);
    await client.listTools();
    const res = await client.callTool({ name: 'list_commands', arguments: {} });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toBeUndefined();
    expect(JSON.stringify(res.content)).toContain('Output validation error');
    await close();
  });
});
