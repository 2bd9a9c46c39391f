import { until } from '@harness/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toFunctionTools } from '../src/adapters';
import { createHostCommandTools } from '../src/host-command-tools';
import { createLoomAuthoringTools } from '../src/loom-authoring-tools';
import { OUTCOME_META_KEY, PROGRESS_META_KEY, registerMcpTools } from '../src/mcp';
import { createRun } from '../src/run';
import { row, type Scenario, scenario } from './helpers/scenario';

describe('adapters', () => {
  let sc: Scenario;
  beforeEach(async () => {
    sc = await scenario('socket');
    sc.script({
      commands: [
        row('a.read', { effect: 'read', readOnlyGranted: true }),
        row('a.write', { effect: 'write' }),
      ],
      behaviour: { 'a.write': { sleepMs: 50 } },
    });
  });
  afterEach(async () => sc.close());

  it('MCP: registers the tools with true annotations, a lean structuredContent beside text, the outcome under _meta, and progress', async () => {
    const tools = [
      ...createHostCommandTools({ config: sc.config, client: sc.client }),
      ...createLoomAuthoringTools({ config: sc.config, client: sc.client }),
    ];
    const run = createRun({ mode: 'enforce-explicit' });
    const server = new McpServer({ name: 'test', version: '0.0.0' });
    registerMcpTools(server, tools, () => ({ run, slot: 'direct-command', jobId: 'job-1' }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'c', version: '0.0.0' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const listed = await client.listTools();
    const by = Object.fromEntries(listed.tools.map((t) => [t.name, t]));
    expect(Object.keys(by).sort()).toEqual([
      'list_commands',
      'loom_authoring_context',
      'loom_compose',
      'loom_inspect',
      'run_command',
      'run_read_command',
    ]);
    expect(by.list_commands?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(by.run_command?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(by.run_read_command?.annotations?.readOnlyHint).toBe(true);
    expect(by.loom_compose?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(by.run_command?.inputSchema.properties).toHaveProperty('calls');

    const progress: number[] = [];
    const res = CallToolResultSchema.parse(
      await client.callTool(
        { name: 'run_command', arguments: { calls: [{ command: 'a.write' }, { command: 'a.read' }] } },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      ),
    );
    // What a model reads as JSON: each call's output, nothing of the record-keeping.
    expect(res.structuredContent).toEqual({
      ok: true,
      results: [
        { ok: true, command: 'a.write', output: { echo: {}, loomId: null } },
        { ok: true, command: 'a.read', output: { echo: {}, loomId: null } },
      ],
    });
    expect(res._meta?.[OUTCOME_META_KEY]).toMatchObject({ status: 'batch', truncated: false });
    // The text leads with each call's status line and output.
    expect(res.content[0]).toEqual({
      type: 'text',
      text: '[1/2 a.write: ok]\n{"echo":{},"loomId":null}\n[2/2 a.read: ok]\n{"echo":{},"loomId":null}',
    });
    expect(res.isError).toBe(false);
    expect(progress).toEqual([1, 2]);
    expect(sc.runs().every((e) => e.jobId === 'job-1')).toBe(true);

    const refused = CallToolResultSchema.parse(
      await client.callTool({ name: 'run_command', arguments: { calls: [] } }),
    );
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(refused._meta?.[OUTCOME_META_KEY]).toMatchObject({ status: 'failed_to_deliver', landed: 'no' });
    const unknown = CallToolResultSchema.parse(
      await client.callTool({ name: 'run_command', arguments: { command: 'a.nope' } }),
    );
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^\[a\.nope: unknown_command; nearest: a\.\w+/),
    });
    await client.close();
    await server.close();
  });

  it('MCP: a single call sends its host’s progress, figures under _meta, and a cancelled call asks the host to stop it', async () => {
    sc.script({
      commands: [row('a.write', { effect: 'write', timeoutMs: 360_000 })],
      behaviour: {
        'a.write': {
          sleepMs: 300,
          progress: [
            { elapsedMs: 2000, outputBytes: 0 },
            { elapsedMs: 4000, outputBytes: 1536 },
          ],
        },
      },
    });
    const run = createRun({ mode: 'enforce-explicit' });
    const server = new McpServer({ name: 'test', version: '0.0.0' });
    registerMcpTools(server, createHostCommandTools({ config: sc.config, client: sc.client }), () => ({
      run,
      slot: 'direct-command',
    }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'c', version: '0.0.0' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const seen: Progress[] = [];
    const res = CallToolResultSchema.parse(
      await client.callTool({ name: 'run_command', arguments: { command: 'a.write' } }, undefined, {
        onprogress: (p) => seen.push(p),
      }),
    );
    expect(res._meta?.[OUTCOME_META_KEY]).toMatchObject({ status: 'executed' });
    expect(res.structuredContent).toMatchObject({ ok: true });
    expect(seen.slice(0, 2)).toEqual([
      {
        progress: 1,
        message: 'a.write running for 2.0s, 0 bytes of output so far',
        _meta: { [PROGRESS_META_KEY]: { elapsedMs: 2000, outputBytes: 0 } },
      },
      {
        progress: 2,
        message: 'a.write running for 4.0s, 1536 bytes of output so far',
        _meta: { [PROGRESS_META_KEY]: { elapsedMs: 4000, outputBytes: 1536 } },
      },
    ]);
    // The call's settling, when it arrives before the result, keeps progress increasing.
    if (seen[2] !== undefined) expect(seen[2]).toEqual({ progress: 3, total: 3 });

    const ac = new AbortController();
    const cancelled = client.callTool({ name: 'run_command', arguments: { command: 'a.write' } }, undefined, {
      signal: ac.signal,
    });
    await until(() => sc.runs().length === 2, 'the second call to reach the host');
    ac.abort('the person pressed stop');
    await expect(cancelled).rejects.toThrow();
    await until(() => sc.log().some((e) => e.op === 'cancel'), 'the cancel to reach the host');
    expect(sc.log().filter((e) => e.op === 'cancel')).toHaveLength(1);
    await client.close();
    await server.close();
  });

  it('function tools: OpenAI-style and AI-SDK-style definitions and a dispatcher that never throws', async () => {
    const run = createRun({ mode: 'disabled' });
    const ft = toFunctionTools(createHostCommandTools({ config: sc.config, client: sc.client }), () => ({
      run,
    }));
    expect(ft.openai.map((t) => t.function.name)).toEqual([
      'list_commands',
      'run_command',
      'run_read_command',
    ]);
    expect(ft.openai[1]?.function.parameters).toMatchObject({ type: 'object' });
    expect(Object.keys(ft.aiSdk)).toEqual(['list_commands', 'run_command', 'run_read_command']);
    expect((await ft.call('run_command', '{"command":"a.read"}')).status).toBe('executed');
    expect((await ft.aiSdk.list_commands?.execute({}))?.status).toBe('ok');
    expect(await ft.call('nope', '{}')).toMatchObject({ code: 'unknown_tool' });
    expect(await ft.call('run_command', '{not json')).toMatchObject({ code: 'invalid_input' });
  });

  it('refuses ~10 KB of nested brackets with a clear invalid_input, as text or as a value, and sends nothing', async () => {
    const run = createRun({ mode: 'disabled' });
    const ft = toFunctionTools(createHostCommandTools({ config: sc.config, client: sc.client }), () => ({
      run,
    }));
    const deepText = `{"command":"a.read","args":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const expected = {
      status: 'failed_to_deliver',
      landed: 'no',
      code: 'invalid_input',
      message: 'The tool input nests arrays and objects deeper than 64 levels; flatten it. Nothing was sent.',
    };
    expect(await ft.call('run_command', deepText)).toEqual(expected);
    // The same input as a parsed value (an MCP client, an AI-SDK loop) is refused by the tool itself.
    const deepValue = JSON.parse(deepText) as unknown;
    expect(await ft.call('run_command', deepValue)).toEqual(expected);
    expect(await ft.aiSdk.run_read_command?.execute(deepValue)).toEqual(expected);
    // Brackets inside a string are text, not nesting.
    const inString = await ft.call('run_command', `{"command":"a.read","args":{"x":"${'['.repeat(5000)}"}}`);
    expect(inString).not.toMatchObject({ code: 'invalid_input' });
    expect(sc.runs()).toHaveLength(1);
  });
});
