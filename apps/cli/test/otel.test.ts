// OpenTelemetry from `harness serve`: the real SDK client calls a real serve started with --otel,
// whose OTLP/HTTP exporters post to a small OTLP/HTTP receiver run here (JSON encoding, what
// @opentelemetry/exporter-*-otlp-http send). Every wait ends on an event: an export arriving.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initInstance } from '@harness/host';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEMCONV } from '../src/otel';
import {
  appDir,
  baseEnv,
  bin,
  connectHttp,
  get,
  runCli,
  sandbox,
  slowWorkspace,
  startHttp,
  structured,
} from './helpers';
import { attrs, type OtlpMetric, otlpReceiver } from './otlp-receiver';

/** The real SDK client on `harness serve …args` over stdio; `elicit` declares elicitation and accepts. */
async function serveStdio(args: string[], home: string, elicit = false): Promise<Client> {
  const client = new Client(
    { name: 'otel-test', version: '0.0.0' },
    elicit ? { capabilities: { elicitation: {} } } : {},
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { approve: true },
    }));
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'serve', ...args],
      env: baseEnv(home),
      stderr: 'ignore',
    }),
  );
  return client;
}

/** The sum of a counter's data points whose attributes include `where`. */
function counted(metrics: OtlpMetric[], name: string, where: Record<string, unknown> = {}): number {
  let total = 0;
  for (const m of metrics.filter((x) => x.name === name))
    for (const p of m.sum?.dataPoints ?? [])
      if (Object.entries(where).every(([k, v]) => attrs(p.attributes)[k] === v))
        total = Math.max(total, Number(p.asInt ?? p.asDouble ?? 0));
  return total;
}

describe('the semantic convention names serve uses', () => {
  it('are the names @opentelemetry/semantic-conventions defines for MCP and GenAI tools', () => {
    expect(SEMCONV).toEqual({
      mcpMethodName: incubating.ATTR_MCP_METHOD_NAME,
      mcpSessionId: incubating.ATTR_MCP_SESSION_ID,
      genAiOperationName: incubating.ATTR_GEN_AI_OPERATION_NAME,
      genAiToolName: incubating.ATTR_GEN_AI_TOOL_NAME,
      jsonrpcRequestId: incubating.ATTR_JSONRPC_REQUEST_ID,
      networkTransport: incubating.ATTR_NETWORK_TRANSPORT,
      errorType: incubating.ATTR_ERROR_TYPE,
      executeTool: incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      mcpServerOperationDuration: incubating.METRIC_MCP_SERVER_OPERATION_DURATION,
    });
  });
});

// A client's trace context, as W3C Trace Context writes it: version, trace id, parent span id, flags.
const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const CALLER_TRACEPARENT = `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`;

describe('harness serve --otel', () => {
  const box = sandbox();
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    const client = await serveStdio(
      ['--instance', box.instance, '--workspace', slowWorkspace, '--otel', receiver.url],
      box.home,
    );
    const secret = 'argument-value-7f3a91';
    const ran = await client.callTool({
      name: 'run_command',
      arguments: { command: 'echo.argv', args: { value: secret } },
    });
    // The command really received the value and printed it: the export must carry neither.
    expect(get(structured(ran), 'entry', 'value', 'output')).toEqual([secret]);
    const unknown = await client.callTool({
      name: 'run_command',
      arguments: { command: 'nope.missing', args: { value: secret } },
      _meta: { traceparent: CALLER_TRACEPARENT },
    });
    expect(structured(unknown).status).toBe('unknown_command');
    // Closing the client stops serve, which exports what it still holds before it exits.
    await client.close();
    await receiver.until(
      () =>
        receiver.spans.filter((s) => s.name === 'tools/call run_command').length === 2 &&
        receiver.metrics.some((m) => m.name === 'harness.tool.calls'),
    );
  });
  afterAll(async () => {
    await receiver?.close();
    box.cleanup();
  });

  it('sends a span per tool call with the MCP and GenAI attributes and no argument value', () => {
    const calls = receiver.spans.filter((s) => s.name === 'tools/call run_command');
    const [ran, unknown] = calls.map((s) => attrs(s.attributes));
    expect(ran).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'run_command',
      'network.transport': 'pipe',
      'harness.tool.status': 'executed',
      'harness.output.id': expect.any(String),
      'jsonrpc.request.id': expect.any(String),
    });
    expect(ran).not.toHaveProperty('error.type');
    expect(unknown).toMatchObject({ 'harness.tool.status': 'unknown_command', 'error.type': 'tool_error' });
    expect(calls.map((s) => s.kind)).toEqual([2, 2]); // SERVER
    expect(calls[1]?.status?.code).toBe(2); // ERROR
    for (const body of receiver.raw) expect(body).not.toContain('argument-value-7f3a91');
  });

  it("continues the client's trace when the call's _meta carries a traceparent, else starts one", () => {
    const [plain, traced] = receiver.spans.filter((s) => s.name === 'tools/call run_command');
    expect(traced).toMatchObject({ traceId: CALLER_TRACE_ID, parentSpanId: CALLER_SPAN_ID });
    expect(plain?.traceId).not.toBe(CALLER_TRACE_ID);
    expect(plain?.parentSpanId ?? '').toBe('');
  });

  it('nests the broker round trip under the call, its checks and the command run under the round trip, and the measurement after it', () => {
    const call = receiver.spans.find(
      (s) => s.name === 'tools/call run_command' && attrs(s.attributes)['harness.tool.status'] === 'executed',
    );
    const broker = receiver.spans.find((s) => s.name === 'broker run echo.argv');
    const exec = receiver.spans.find((s) => s.name === 'exec echo.argv');
    expect(broker).toMatchObject({ traceId: call?.traceId, parentSpanId: call?.spanId, kind: 3 }); // CLIENT
    expect(attrs(broker?.attributes ?? [])).toMatchObject({
      'harness.command': 'echo.argv',
      'harness.answer.code': 'ok',
      'harness.answer.may_have_landed': false,
    });
    expect(exec).toMatchObject({ traceId: call?.traceId, parentSpanId: broker?.spanId });
    // The host's checks: from the send to the run's start, under the round trip.
    const check = receiver.spans.find((s) => s.name === 'broker check echo.argv');
    expect(check).toMatchObject({ traceId: call?.traceId, parentSpanId: broker?.spanId });
    expect(BigInt(check?.endTimeUnixNano ?? 0)).toBeLessThanOrEqual(
      BigInt(exec?.startTimeUnixNano ?? 0) + 1_000_000n,
    );
    // The answer measured against the run's ceiling, after the round trip, under the call.
    const measure = receiver.spans.find((s) => s.name === 'measure echo.argv');
    expect(measure).toMatchObject({ traceId: call?.traceId, parentSpanId: call?.spanId });
    expect(attrs(measure?.attributes ?? [])).toEqual({
      'harness.command': 'echo.argv',
      'harness.measurement.status': 'admitted',
    });
    expect(BigInt(measure?.startTimeUnixNano ?? 0)).toBeGreaterThanOrEqual(
      BigInt(broker?.endTimeUnixNano ?? 0),
    );
    // The call that named no listed command sent nothing: it has no round trip.
    expect(receiver.spans.filter((s) => s.name.startsWith('broker run'))).toHaveLength(1);
  });

  it('exports the calls, the refusals by code, the run durations and the output bytes as metrics', () => {
    const m = receiver.metrics;
    expect(counted(m, 'harness.tool.calls', { 'harness.tool.status': 'executed' })).toBe(1);
    expect(counted(m, 'harness.tool.calls', { 'harness.tool.status': 'unknown_command' })).toBe(1);
    expect(counted(m, 'harness.command.refusals', { 'harness.refusal.code': 'unknown_command' })).toBe(1);
    expect(counted(m, 'harness.output.bytes', { 'gen_ai.tool.name': 'run_command' })).toBeGreaterThan(0);
    const exec = m.find((x) => x.name === 'harness.exec.duration')?.histogram?.dataPoints ?? [];
    expect(exec.map((p) => [attrs(p.attributes)['harness.command'], Number(p.count)])).toEqual([
      ['echo.argv', 1],
    ]);
    const ops = m.find((x) => x.name === 'mcp.server.operation.duration')?.histogram?.dataPoints ?? [];
    expect(ops.reduce((n, p) => n + Number(p.count), 0)).toBe(2);
  });
});

describe('harness serve --otel, a call that waits for approval', () => {
  const box = sandbox();
  const workspace = join(appDir, 'test', 'fixtures', 'approval-wait', 'workspace.yaml');
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    await initInstance(box.instance, workspace, { serves: { agent: 'demo' } });
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    box.cleanup();
  });

  it('puts the approval wait and then the run under the broker round trip, and counts the wait', async () => {
    const client = await serveStdio(['--instance', box.instance, '--otel', receiver.url], box.home, true);
    const result = await client.callTool(
      { name: 'run_command', arguments: { command: 'notes.write', args: { line: 'traced note' } } },
      undefined,
      { timeout: 60_000 },
    );
    expect(get(structured(result), 'entry', 'value', 'output')).toBe('noted traced note');
    await client.close();
    await receiver.until(() => receiver.metrics.some((m) => m.name === 'harness.approval.wait.duration'));
    const wait = receiver.spans.find((s) => s.name === 'approval wait');
    const broker = receiver.spans.find((s) => s.spanId === wait?.parentSpanId);
    const exec = receiver.spans.find((s) => s.name === 'exec notes.write');
    expect(broker?.name).toBe('broker run notes.write');
    expect(attrs(wait?.attributes ?? [])['harness.approval.id']).toMatch(/^apr/);
    expect(exec?.parentSpanId).toBe(broker?.spanId);
    // The wait ends before the run begins.
    expect(BigInt(wait?.endTimeUnixNano ?? 0)).toBeLessThanOrEqual(BigInt(exec?.startTimeUnixNano ?? 0));
    expect(counted(receiver.metrics, 'harness.approvals.pending')).toBe(0);
    const waits = receiver.metrics.find((m) => m.name === 'harness.approval.wait.duration');
    expect(Number(waits?.histogram?.dataPoints[0]?.count)).toBe(1);
    for (const body of receiver.raw) expect(body).not.toContain('traced note');
  });
});

describe('harness serve --otel, a pack that lets telemetry carry its argument values', () => {
  const box = sandbox();
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    // The test workspace with one change: the slow pack opts in, the echo pack does not.
    const workspace = join(box.root, 'workspace.yaml');
    const text = readFileSync(slowWorkspace, 'utf8');
    writeFileSync(
      workspace,
      text.replace('    timeout: 30s\n', '    timeout: 30s\n    telemetry: { include_args: true }\n'),
    );
    const client = await serveStdio(
      ['--instance', box.instance, '--workspace', workspace, '--otel', receiver.url],
      box.home,
    );
    for (const [command, args] of [
      ['slow.wait', { seconds: 0 }],
      ['echo.argv', { value: 'echo-value-5c1d' }],
    ] as const) {
      const result = await client.callTool({ name: 'run_command', arguments: { command, args } });
      expect(result.isError).not.toBe(true);
    }
    await client.close();
    await receiver.until(() => receiver.spans.filter((s) => s.name.startsWith('broker run')).length === 2);
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    box.cleanup();
  });

  it("puts the opted-in pack's argument values on its broker round trip, and no other pack's", () => {
    const span = (name: string) => attrs(receiver.spans.find((s) => s.name === name)?.attributes ?? []);
    expect(span('broker run slow.wait')['harness.command.args']).toBe('{"seconds":0}');
    expect(span('broker run echo.argv')).not.toHaveProperty('harness.command.args');
    for (const body of receiver.raw) expect(body).not.toContain('echo-value-5c1d');
  });
});

describe('harness serve --http --metrics', () => {
  const box = sandbox();
  let server: Awaited<ReturnType<typeof startHttp>>;
  beforeAll(async () => {
    server = await startHttp(
      ['--http', '127.0.0.1:0', '--metrics', '--instance', box.instance, '--workspace', slowWorkspace],
      box.home,
    );
  });
  afterAll(async () => {
    await server?.stop();
    box.cleanup();
  });

  it('serves the call metrics as Prometheus text at /metrics, behind the bearer token', async () => {
    const client = await connectHttp(server.url, server.token);
    await client.callTool({ name: 'run_command', arguments: { command: 'echo.argv', args: { value: 'x' } } });
    await client.close();
    const metricsUrl = new URL('/metrics', server.url);
    expect((await fetch(metricsUrl)).status).toBe(401);
    const res = await fetch(metricsUrl, { headers: { authorization: `Bearer ${server.token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^harness_tool_calls_total\{[^}]*harness_tool_status="executed"[^}]*\} 1$/m);
    expect(text).toMatch(/^harness_exec_duration_count\{[^}]*harness_command="echo.argv"[^}]*\} 1$/m);
  });

  it('refuses --metrics without --http, saying how to export over stdio', async () => {
    const run = await runCli(['serve', '--metrics'], { home: box.home });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      '--metrics serves /metrics on the HTTP listener; give --http <host:port> too',
    );
  });
});

describe('harness serve --otel with a 2026-07-28 client', () => {
  const box = sandbox();
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  afterAll(async () => {
    await receiver?.close();
    box.cleanup();
  });

  it("continues the client's trace from the call's _meta, as for a 2025 client", async () => {
    receiver = await otlpReceiver();
    const { Client: ModernClient } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport: ModernStdio } = await import('@modelcontextprotocol/client/stdio');
    const client = new ModernClient(
      { name: 'otel-modern', version: '0.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new ModernStdio({
        command: process.execPath,
        args: [
          bin,
          'serve',
          '--instance',
          box.instance,
          '--workspace',
          slowWorkspace,
          '--otel',
          receiver.url,
        ],
        env: baseEnv(box.home),
        stderr: 'ignore',
      }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    await client.callTool({
      name: 'run_command',
      arguments: { command: 'nope.missing', args: {} },
      _meta: { traceparent: CALLER_TRACEPARENT },
    });
    await client.close();
    await receiver.until(() => receiver.spans.some((s) => s.name === 'tools/call run_command'));
    const span = receiver.spans.find((s) => s.name === 'tools/call run_command');
    expect(span).toMatchObject({ traceId: CALLER_TRACE_ID, parentSpanId: CALLER_SPAN_ID });
    expect(attrs(span?.attributes ?? [])).toMatchObject({ 'network.transport': 'pipe' });
  }, 60_000);
});
