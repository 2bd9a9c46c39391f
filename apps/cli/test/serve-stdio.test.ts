// harness serve over stdio, driven by the real MCP SDK client (StdioClientTransport spawning the
// real bin) on the embedded default with a temp instance.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '@harness/test-utils';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseEnv,
  bin,
  connectStdio,
  get,
  loomBin,
  sandbox,
  serveLines,
  slowWorkspace,
  structured,
} from './helpers';

const box = sandbox();
let conn: Awaited<ReturnType<typeof connectStdio>>;

beforeAll(async () => {
  conn = await connectStdio(
    ['--instance', box.instance, '--workspace', slowWorkspace, '--heartbeat', '150'],
    box.home,
  );
});
afterAll(async () => {
  await conn?.close();
  box.cleanup();
});

describe('harness serve over stdio', () => {
  it('lists the six tools with true annotations', async () => {
    const { tools } = await conn.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'list_commands',
      'run_command',
      'run_read_command',
      'loom_compose',
      'loom_inspect',
      'loom_authoring_context',
    ]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.list_commands?.annotations?.readOnlyHint).toBe(true);
    expect(byName.run_read_command?.annotations?.readOnlyHint).toBe(true);
    expect(byName.run_command?.annotations?.readOnlyHint).toBe(false);
    expect(byName.loom_compose?.annotations?.readOnlyHint).toBe(false);
    expect(byName.loom_compose?.annotations?.idempotentHint).toBe(true);
    expect(byName.run_command?.inputSchema.type).toBe('object');
  });

  it('prints where the embedded default keeps its data on stderr once its host has started', async () => {
    const where = `embedded host created at ${box.instance} (chosen by --instance;`;
    expect(await conn.stderrWith(where)).toContain(where);
  });

  it('list_commands returns the catalog as structuredContent beside the same JSON text', async () => {
    const res = await conn.client.callTool({ name: 'list_commands', arguments: {} });
    const value = structured(res);
    expect(value.status).toBe('ok');
    expect(JSON.parse(String(get(res, 'content', 0, 'text')))).toEqual(value);
    const names = (value.entries as { name: string }[]).map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['slow.wait', 'echo.argv', 'loom.compose']));
  });

  it('run_read_command runs a granted read', async () => {
    const res = await conn.client.callTool({
      name: 'run_read_command',
      arguments: { command: 'echo.argv', args: { value: '$(id) `x` ; |' } },
    });
    const value = structured(res);
    expect(value.status).toBe('executed');
    expect(get(value, 'entry', 'value', 'output')).toEqual(['$(id) `x` ; |']);
    // What a client that forwards structuredContent hands its model: the output, nothing else.
    expect(res.structuredContent).toEqual({ ok: true, exit: 0, output: '$(id) `x` ; |' });
    expect(res.isError).toBe(false);
    expect(get(res, 'content', 0, 'text')).toBe('$(id) `x` ; |\n[echo.argv: ok, exit 0]');
  });

  it('marks every result that is not a success isError, and says why in its text', async () => {
    const unknown = await conn.client.callTool({ name: 'run_command', arguments: { command: 'echo.argx' } });
    expect(unknown.isError).toBe(true);
    expect(get(unknown, 'content', 0, 'text')).toMatch(/^\[echo\.argx: unknown_command; nearest: echo\.argv/);
    const badArgs = await conn.client.callTool({
      name: 'run_command',
      arguments: { command: 'echo.argv', args: { value: 5 } },
    });
    expect(badArgs.isError).toBe(true);
    expect(get(badArgs, 'content', 0, 'text')).toMatch(
      /\[echo\.argv: bad-args, expected echo\.argv\(value: string\)/,
    );
    const malformed = await conn.client.callTool({ name: 'run_command', arguments: { calls: [] } });
    expect(malformed.isError).toBe(true);
  });

  it('run_command runs a single call and a batch, one result per call in order', async () => {
    const single = structured(
      await conn.client.callTool({
        name: 'run_command',
        arguments: { command: 'echo.argv', args: { value: 'one' } },
      }),
    );
    expect(single.status).toBe('executed');
    expect(get(single, 'outcome', 'ok')).toBe(true);
    const batch = structured(
      await conn.client.callTool({
        name: 'run_command',
        arguments: {
          calls: [
            { command: 'echo.argv', args: { value: 'a' } },
            { command: 'nope.missing', args: {} },
            { command: 'echo.argv', args: { value: 'b' } },
          ],
        },
      }),
    );
    expect(batch.status).toBe('batch');
    const results = batch.results as Record<string, unknown>[];
    expect(results.map((r) => r.status)).toEqual(['executed', 'unknown_command', 'executed']);
    expect(get(results[2], 'entry', 'value', 'output')).toEqual(['b']);
  });

  it('sends heartbeat progress notifications while a long single call runs', async () => {
    const seen: { progress: number; total?: number | undefined; message?: string | undefined }[] = [];
    const res = await conn.client.callTool(
      { name: 'run_read_command', arguments: { command: 'slow.wait', args: { seconds: 1 } } },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p) },
    );
    expect(structured(res).status).toBe('executed');
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.map((p) => p.progress)).toEqual(seen.map((_, i) => i + 1));
    expect(seen[0]?.message).toMatch(/^run_read_command still running/);
    // The tool's own completion report, when it arrives before the result, is renumbered so
    // progress keeps increasing.
    const last = seen.at(-1);
    if (last?.total !== undefined) expect(last).toEqual({ progress: seen.length, total: seen.length });
  });

  it('reports batch progress as its calls settle, increasing, with the batch size as total', async () => {
    const seen: { progress: number; total?: number | undefined }[] = [];
    const res = await conn.client.callTool(
      {
        name: 'run_command',
        arguments: {
          calls: [
            { command: 'echo.argv', args: { value: 'a' } },
            { command: 'slow.wait', args: { seconds: 0.6 } },
          ],
        },
      },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p) },
    );
    expect(structured(res).status).toBe('batch');
    // The SDK client runs progress handlers a microtask late and drops the handler when the result
    // arrives, so a report sent just before the result may be lost; the first one never is.
    expect(seen[0]).toEqual({ progress: 1, total: 2 });
    expect(seen.map((p) => p.progress)).toEqual(seen.map((_, i) => i + 1));
  });

  it('cancels a slow call: the client settles at once, sent calls of a batch are cancelled at the broker, unsent ones never run', async () => {
    // The audit of the calls of slow.wait: the broker records each call's start before it spawns it.
    const waits = () => {
      const text = execFileSync(
        process.execPath,
        [loomBin, 'audit', 'tail', '--json', '-n', '500', '--instance', box.instance],
        { encoding: 'utf8' },
      );
      return (JSON.parse(text) as { events: Record<string, unknown>[] }).events.filter(
        (e) => e.command === 'slow.wait',
      );
    };
    const startedBefore = waits().filter((e) => e.phase === 'start').length;
    const controller = new AbortController();
    const started = Date.now();
    const pending = conn.client.callTool(
      {
        name: 'run_command',
        arguments: {
          // Four in flight at most: the last two wait for a slot and are cancelled before sending.
          calls: Array.from({ length: 6 }, () => ({ command: 'slow.wait', args: { seconds: 20 } })),
        },
      },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    // Earlier tests of this instance started calls of slow.wait too.
    const startedCalls = () => waits().filter((e) => e.phase === 'start').length - startedBefore;
    await until(() => startedCalls() === 4, 'the four sent calls to start', { everyMs: 200 });
    controller.abort('test cancelled');
    await expect(pending).rejects.toThrow();
    // Settled without waiting for the commands' 20 s (a bound far from any machine's load, not a speed).
    expect(Date.now() - started).toBeLessThan(10_000);
    // The four sent calls are cancelled at the broker, which still records each one; the two
    // unsent never start. No other call of this connection is cancelled.
    const ran = () => waits().filter((e) => e.phase === 'run' && e.outcome === 'cancelled').length;
    await until(() => ran() === 4, 'the broker to record the four sent calls cancelled', { everyMs: 200 });
    // The server still answers after a cancellation.
    const after = structured(
      await conn.client.callTool({
        name: 'run_read_command',
        arguments: { command: 'echo.argv', args: { value: 'x' } },
      }),
    );
    expect(after.status).toBe('executed');
    // By the time the connection answered its next call, an unsent call of the batch would have
    // been sent had the cancellation not held it back: still four started, four cancelled.
    expect([startedCalls(), ran()]).toEqual([4, 4]);
  });
});

describe('harness serve --keep-going over stdio when its embedded host cannot start', () => {
  it('still answers initialize and tools/list, says why once on stderr, and answers every call with that reason', async () => {
    const own = sandbox();
    const workspace = join(own.root, 'bad.yaml');
    writeFileSync(
      workspace,
      'version: 1\ncommand_packs:\n  - id: bad.pack\n    commands:\n      - id: run\n        argv: [ls]\n        effects: sideways\nagents: []\n',
    );
    const conn = await connectStdio(
      ['--instance', own.instance, '--workspace', workspace, '--keep-going'],
      own.home,
    );
    try {
      const { tools } = await conn.client.listTools();
      expect(tools).toHaveLength(6);
      // The line `harness call` prints for the same start-up failure (then it exits 3).
      const reason = `the embedded host cannot start: the workspace ${workspace} does not load (2 error(s)); run 'harness packs check ${workspace}' to see each one`;
      const calls = [
        { name: 'list_commands', arguments: {} },
        { name: 'run_read_command', arguments: { command: 'bad.run', args: {} } },
        { name: 'loom_inspect', arguments: { loom_id: 'loom_1' } },
      ];
      for (const call of calls) {
        const res = await conn.client.callTool(call);
        expect(res.isError, call.name).toBe(true);
        expect(structured(res)).toEqual({
          outputId: expect.any(String),
          status: 'failed_to_deliver',
          landed: 'no',
          code: 'host_unavailable',
          message: reason,
        });
        expect(get(res, 'content', 0, 'text')).toBe(
          `[failed_to_deliver (host_unavailable, landed: no). ${reason}]`,
        );
      }
      expect(conn.stderr()).toBe(
        `harness: serving list_commands, run_command, run_read_command, loom_compose, loom_inspect, loom_authoring_context over stdio\nharness: approvals: strict calls are put to the person in MCP clients that support elicitation; others wait for the console or harness approvals (--approvals queue: always wait)\nharness: ${reason}\n`,
      );
      expect(existsSync(own.instance)).toBe(false);
    } finally {
      await conn.close();
      own.cleanup();
    }
  });
});

describe('harness serve over stdio when its client goes', () => {
  it('exits promptly when stdin closes while a call still runs, and leaves no command behind [SEC-5]', async () => {
    const own = sandbox();
    try {
      const child = spawn(
        process.execPath,
        [bin, 'serve', '--instance', own.instance, '--workspace', slowWorkspace, '--heartbeat', '0'],
        { env: baseEnv(own.home), stdio: ['pipe', 'pipe', 'pipe'] },
      );
      let stdout = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (c: string) => {
        stdout += c;
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      });
      await until(() => stdout.includes('"id":1'), 'the answer to initialize');
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'run_read_command', arguments: { command: 'slow.wait', args: { seconds: 19.37 } } },
      });
      // The call is running once its node process exists.
      const running = () =>
        execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
          .split('\n')
          .filter((l) => l.includes('setTimeout') && l.endsWith('-- 19.37'));
      // The command itself, and the sandbox around it when reads are confined.
      await until(() => running().length > 0, 'the command to run');

      const closedAt = Date.now();
      child.stdin.end();
      expect(await exited).toBe(0);
      // The sandbox around the command (bwrap) ends when the command does, a moment after serve has
      // exited: every process of the call is gone within the same 5 s, long before the 19 s it asked.
      await until(
        () => running().length === 0,
        () => `every process of the call to end: ${running()}`,
        {
          timeoutMs: Math.max(0, 5_000 - (Date.now() - closedAt)),
        },
      );
      expect(Date.now() - closedAt).toBeLessThan(5_000);
    } finally {
      own.cleanup();
    }
  });
});

describe('harness serve over stdio given a message over its 4 MiB limit', () => {
  const MiB = 1024 * 1024;
  const tooLarge = (bytes: number) =>
    `Invalid Request: an MCP message to harness serve may hold at most 4194304 bytes (4 MiB), this one held ${bytes} bytes; it was discarded unread. Send less in one message: split a run_command batch into several calls, and keep large content out of tool arguments.`;
  const own = sandbox();
  let serve: ReturnType<typeof serveLines>;
  beforeAll(async () => {
    serve = serveLines(
      ['--instance', own.instance, '--workspace', slowWorkspace, '--heartbeat', '0'],
      own.home,
    );
    await serve.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    expect(get(await serve.next(), 'result', 'serverInfo', 'name')).toBe('harness');
    await serve.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });
  afterAll(async () => {
    await serve?.stop();
    own.cleanup();
  });

  it('answers a 12 MiB request with an Invalid Request error carrying its id, then answers the next call [SEC-19]', async () => {
    // The order the MCP SDK client writes: the id comes last, after the 12 MiB of params.
    const line = JSON.stringify({
      method: 'tools/call',
      params: {
        name: 'run_read_command',
        arguments: { command: 'echo.argv', args: { value: 'x'.repeat(12 * MiB) } },
      },
      jsonrpc: '2.0',
      id: 2,
    });
    const bytes = Buffer.byteLength(line);
    expect(bytes).toBe(12 * MiB + 139);
    await serve.write(`${line}\n`);
    expect(await serve.next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32600, message: tooLarge(bytes), data: { maxBytes: 4194304, bytes } },
    });
    await serve.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    const list = await serve.next();
    expect(get(list, 'id')).toBe(3);
    expect(get(list, 'result', 'tools', 0, 'name')).toBe('list_commands');
  });

  it('answers a 12 MiB line whose id cannot be read with id null, then answers the next call [SEC-19]', async () => {
    await serve.write(`${'x'.repeat(12 * MiB)}\n`);
    expect(await serve.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: tooLarge(12 * MiB), data: { maxBytes: 4194304, bytes: 12 * MiB } },
    });
    await serve.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(await serve.next()).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('still answers a request of exactly 4 MiB [SEC-19]', async () => {
    const envelope = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping', params: { pad: '' } });
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 5,
      method: 'ping',
      params: { pad: 'y'.repeat(4 * MiB - Buffer.byteLength(envelope)) },
    });
    expect(Buffer.byteLength(line)).toBe(4 * MiB);
    await serve.write(`${line}\n`);
    expect(await serve.next()).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
  });

  it('answers a line that is not JSON with a Parse error and id null, then answers the next call [SEC-19]', async () => {
    await serve.write('{"jsonrpc": "2.0", "id": 6,\n');
    expect(await serve.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32700,
        message: expect.stringMatching(
          /^Parse error: the line is not JSON \(.+\); send one JSON-RPC message per line$/,
        ),
      },
    });
    await serve.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(await serve.next()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });
});

describe('harness serve over stdio, to the MCP SDK client, given a call over 4 MiB', () => {
  it('fails that call at once with the error naming the limit, and answers the next call [SEC-19]', async () => {
    const own = sandbox();
    const sdk = await connectStdio(['--instance', own.instance, '--workspace', slowWorkspace], own.home);
    try {
      const huge = sdk.client.callTool({
        name: 'run_read_command',
        arguments: { command: 'echo.argv', args: { value: 'x'.repeat(12 * 1024 * 1024) } },
      });
      await expect(huge).rejects.toMatchObject({
        code: -32600,
        message: expect.stringContaining('may hold at most 4194304 bytes (4 MiB)'),
      });
      const next = structured(
        await sdk.client.callTool({
          name: 'run_read_command',
          arguments: { command: 'echo.argv', args: { value: 'after' } },
        }),
      );
      expect(get(next, 'entry', 'value', 'output')).toEqual(['after']);
    } finally {
      await sdk.close();
      own.cleanup();
    }
  });
});
