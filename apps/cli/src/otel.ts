// OpenTelemetry for `harness serve` (docs/observability.md): a span per MCP tool call, with child
// spans for each broker round trip and, from what the broker reports, the approval wait and the
// command's run; metrics of the same calls, exported over OTLP/HTTP and/or served as Prometheus text
// at /metrics. The SDK is loaded by `startTelemetry` only, so a serve without telemetry loads none
// of it. A span and a metric carry names, ids, codes, durations and byte counts, never a command's
// output; argument values only where the command's pack says `telemetry: { include_args: true }`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HarnessTool, SendOutcome, ToolOutcome } from '@harness/commands';
import type { RunProgress } from '@harness/protocol';
import type { Counter, Histogram, Span, Tracer, UpDownCounter } from '@opentelemetry/api';
import { CliError } from './errors';
import { withExecute } from './tool-wrap';

// The names of the OpenTelemetry semantic conventions for MCP and GenAI tools (semconv 1.45,
// still "development"): copied, as the conventions ask of unstable names, and pinned against
// `@opentelemetry/semantic-conventions/incubating` by test/otel.test.ts.
export const SEMCONV = {
  mcpMethodName: 'mcp.method.name',
  mcpSessionId: 'mcp.session.id',
  genAiOperationName: 'gen_ai.operation.name',
  genAiToolName: 'gen_ai.tool.name',
  jsonrpcRequestId: 'jsonrpc.request.id',
  networkTransport: 'network.transport',
  errorType: 'error.type',
  executeTool: 'execute_tool',
  mcpServerOperationDuration: 'mcp.server.operation.duration',
} as const;

/** Where serve's telemetry goes; `undefined` from {@link telemetryOptions} means none at all. */
export interface TelemetryOptions {
  /** `--otel <url>`: the OTLP/HTTP base URL (`/v1/traces` and `/v1/metrics` are added). */
  endpoint?: string | undefined;
  /** The OTLP endpoint comes from the `OTEL_EXPORTER_OTLP_*` environment, read by the exporters. */
  fromEnv: boolean;
  /** `--metrics`: keep the metrics for /metrics (Prometheus text) on serve's HTTP listener. */
  prometheus: boolean;
  /** How often metrics are pushed over OTLP, in ms (`OTEL_METRIC_EXPORT_INTERVAL`, default 60000). */
  exportIntervalMs: number;
}

/**
 * Reads serve's telemetry settings: `--otel <url>`, else `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; `OTEL_SDK_DISABLED=true` turns OTLP export off. Loads nothing.
 */
export function telemetryOptions(
  flag: string | undefined,
  prometheus: boolean,
  env: NodeJS.ProcessEnv,
): TelemetryOptions | undefined {
  if (flag !== undefined) {
    let url: URL;
    try {
      url = new URL(flag);
    } catch {
      throw new CliError(
        'usage',
        `--otel must be an http(s) URL such as http://127.0.0.1:4318, found '${flag}'`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new CliError(
        'usage',
        `--otel must be an http(s) URL such as http://127.0.0.1:4318, found '${flag}'`,
      );
  }
  const fromEnv =
    flag === undefined &&
    env.OTEL_SDK_DISABLED?.toLowerCase() !== 'true' &&
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (flag === undefined && !fromEnv && !prometheus) return undefined;
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return {
    endpoint: flag,
    fromEnv,
    prometheus,
    exportIntervalMs: Number.isSafeInteger(interval) && interval > 0 ? interval : 60_000,
  };
}

/** What a traced tool call knows of the MCP request that carried it. */
export interface McpCall {
  /** The JSON-RPC id of the `tools/call` request. */
  requestId: string | number | undefined;
  /** The streamable-HTTP session id; none over stdio. */
  sessionId: string | undefined;
  transport: 'stdio' | 'http';
  /** The request's `_meta`, when it carried a W3C `traceparent` (and maybe a `tracestate`). */
  traceContext?: Readonly<Record<string, string>> | undefined;
}

/** Serve's telemetry, started. */
export interface Telemetry {
  /** `tool` with a span and metrics around each call; `call` says which MCP request a call came in. */
  instrument(tool: HarnessTool, call: (signal: AbortSignal | undefined) => McpCall): HarnessTool;
  /** Answers GET /metrics with the Prometheus text, when started with `prometheus`. */
  serveMetrics?: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/** The instruments every call records into. */
interface Instruments {
  calls: Counter;
  duration: Histogram;
  refusals: Counter;
  execDuration: Histogram;
  outputBytes: Counter;
  approvalsPending: UpDownCounter;
  approvalWait: Histogram;
}

/** The OTLP/HTTP URL of one signal (`/v1/traces`, `/v1/metrics`) under `--otel`'s base URL. */
function signalUrl(options: TelemetryOptions, path: string): { url?: string } {
  // Given --otel, the signal paths are added to it as OTEL_EXPORTER_OTLP_ENDPOINT's are; from the
  // environment, the exporters read every OTEL_EXPORTER_OTLP_* variable themselves.
  return options.endpoint === undefined ? {} : { url: `${options.endpoint.replace(/\/+$/, '')}${path}` };
}

/** The process's resource (`service.name`, `service.version`) and a tracer provider exporting over OTLP when asked. */
export async function startTracerProvider(options: TelemetryOptions, serviceVersion: string) {
  const [traceSdk, resources, semconv] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const resource = resources.resourceFromAttributes({
    [semconv.ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || 'harness',
    [semconv.ATTR_SERVICE_VERSION]: serviceVersion,
  });
  const spanProcessors = [];
  if (options.endpoint !== undefined || options.fromEnv) {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    spanProcessors.push(
      new traceSdk.BatchSpanProcessor(new OTLPTraceExporter(signalUrl(options, '/v1/traces'))),
    );
  }
  return { resource, tracerProvider: new traceSdk.BasicTracerProvider({ resource, spanProcessors }) };
}

/** Starts the SDK: a tracer provider and a meter provider, each with its exporters. */
export async function startTelemetry(options: TelemetryOptions, serviceVersion: string): Promise<Telemetry> {
  const [api, core, metricsSdk, { resource, tracerProvider }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-metrics'),
    startTracerProvider(options, serviceVersion),
  ]);
  const otlp = options.endpoint !== undefined || options.fromEnv;

  const readers = [];
  if (otlp) {
    const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
    readers.push(
      new metricsSdk.PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(signalUrl(options, '/v1/metrics')),
        exportIntervalMillis: options.exportIntervalMs,
        exportTimeoutMillis: Math.min(30_000, options.exportIntervalMs),
      }),
    );
  }
  let prometheus: import('@opentelemetry/exporter-prometheus').PrometheusExporter | undefined;
  if (options.prometheus) {
    const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus');
    // Its own server is never started: serve answers /metrics on its listener, behind its token.
    prometheus = new PrometheusExporter({ preventServerStart: true });
    readers.push(prometheus);
  }
  const meterProvider = new metricsSdk.MeterProvider({ resource, readers });

  const meter = meterProvider.getMeter('harness', serviceVersion);
  const seconds = { unit: 's', advice: { explicitBucketBoundaries: SECOND_BUCKETS } };
  const instruments: Instruments = {
    calls: meter.createCounter('harness.tool.calls', {
      description: 'MCP tool calls served, by tool and result status.',
    }),
    duration: meter.createHistogram(SEMCONV.mcpServerOperationDuration, {
      description: 'Duration of MCP tools/call requests as the server handled them.',
      ...seconds,
    }),
    refusals: meter.createCounter('harness.command.refusals', {
      description: 'Command calls refused, by code (host refusals and calls the harness never sent).',
    }),
    execDuration: meter.createHistogram('harness.exec.duration', {
      description: 'How long pack commands ran, as their host reported it, by command.',
      ...seconds,
    }),
    outputBytes: meter.createCounter('harness.output.bytes', {
      description: 'Bytes of answer bodies returned to the agent, by tool.',
      unit: 'By',
    }),
    approvalsPending: meter.createUpDownCounter('harness.approvals.pending', {
      description: 'Command calls waiting for a person to decide their approval.',
    }),
    approvalWait: meter.createHistogram('harness.approval.wait.duration', {
      description: "How long command calls waited for a person's decision.",
      ...seconds,
    }),
  };
  const tracer = tracerProvider.getTracer('harness', serviceVersion);
  const scope = { api, tracer, instruments, propagator: new core.W3CTraceContextPropagator() };
  return {
    instrument: (tool, call) => instrumented(tool, call, scope),
    ...(prometheus === undefined
      ? {}
      : {
          serveMetrics: (req: IncomingMessage, res: ServerResponse) =>
            prometheus.getMetricsRequestHandler(req, res),
        }),
    shutdown: async () => {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

// From 5 ms to 10 minutes: a call is a broker round trip (~1 ms) plus a process, or a person's wait.
const SECOND_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

interface Scope {
  api: typeof import('@opentelemetry/api');
  tracer: Tracer;
  instruments: Instruments;
  /** Reads a W3C `traceparent`/`tracestate` pair into a context whose span is the caller's. */
  propagator: import('@opentelemetry/api').TextMapPropagator;
}

/** `tool`, each call of it in a SERVER span with one CLIENT child span per command sent to the host. */
function instrumented(
  tool: HarnessTool,
  mcpCall: (signal: AbortSignal | undefined) => McpCall,
  { api, tracer, instruments, propagator }: Scope,
): HarnessTool {
  return withExecute(tool, async (input, ctx) => {
    const call = mcpCall(ctx.signal);
    const started = performance.now();
    // A client's trace context (`params._meta.traceparent`) makes the call a span of its trace.
    const caller =
      call.traceContext === undefined
        ? api.ROOT_CONTEXT
        : propagator.extract(api.ROOT_CONTEXT, call.traceContext, api.defaultTextMapGetter);
    const span = tracer.startSpan(
      `tools/call ${tool.name}`,
      {
        kind: api.SpanKind.SERVER,
        attributes: {
          [SEMCONV.mcpMethodName]: 'tools/call',
          [SEMCONV.genAiOperationName]: SEMCONV.executeTool,
          [SEMCONV.genAiToolName]: tool.name,
          [SEMCONV.networkTransport]: call.transport === 'stdio' ? 'pipe' : 'tcp',
          ...(call.requestId === undefined ? {} : { [SEMCONV.jsonrpcRequestId]: String(call.requestId) }),
          ...(call.sessionId === undefined ? {} : { [SEMCONV.mcpSessionId]: call.sessionId }),
        },
      },
      caller,
    );
    const parent = api.trace.setSpan(api.ROOT_CONTEXT, span);
    const onHostCall = (command: string, sent: { args?: Readonly<Record<string, unknown>> }) => ({
      ...hostCallSpan(command, sent.args, parent, { api, tracer, instruments }),
      measured: (m: { status: string; reasonCode?: string; startTime: number; endTime: number }) =>
        measureSpan(command, m, parent, tracer),
    });
    let result: ToolOutcome | undefined;
    try {
      result = await tool.execute(input, { ...ctx, onHostCall });
      return result;
    } finally {
      const error = result === undefined ? 'exception' : errorType(result);
      if (result !== undefined) {
        span.setAttribute('harness.tool.status', result.status);
        span.setAttribute('harness.output.id', result.outputId ?? '');
        if (result.status === 'batch') span.setAttribute('harness.batch.size', result.results.length);
        recordResult(result, tool.name, instruments);
      }
      if (error !== undefined) {
        span.setAttribute(SEMCONV.errorType, error);
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      span.end();
      const attributes = {
        [SEMCONV.mcpMethodName]: 'tools/call',
        [SEMCONV.genAiToolName]: tool.name,
        ...(error === undefined ? {} : { [SEMCONV.errorType]: error }),
      };
      instruments.duration.record((performance.now() - started) / 1000, attributes);
      instruments.calls.add(1, {
        [SEMCONV.genAiToolName]: tool.name,
        'harness.tool.status': result?.status ?? 'exception',
      });
    }
  });
}

/**
 * A result's `error.type`: MCP's `tool_error` for a result that is not a success, as its
 * `isError` says; none for a success.
 */
function errorType(result: ToolOutcome): string | undefined {
  switch (result.status) {
    case 'ok':
      return undefined;
    case 'executed':
      return result.outcome.withheld === true || result.outcome.ok !== true ? 'tool_error' : undefined;
    case 'batch':
      return result.results.some((r) => errorType(r) !== undefined) ? 'tool_error' : undefined;
    default:
      return 'tool_error';
  }
}

/** Counts a result's answer bytes, and the refusals of calls the harness never sent. */
function recordResult(result: ToolOutcome, tool: string, instruments: Instruments): void {
  const calls = result.status === 'batch' ? result.results : [result];
  let bytes = 0;
  for (const r of calls) {
    if (r.status === 'executed') {
      if (r.outcome.withheld !== true) bytes += r.outcome.bodyBytes;
    } else if (r.status === 'not_granted' || r.status === 'unknown_command') {
      instruments.refusals.add(1, { 'harness.refusal.code': r.status });
    } else if (r.status === 'failed_to_deliver' && r.code === 'not_authorized') {
      instruments.refusals.add(1, { 'harness.refusal.code': r.code });
    }
  }
  if (bytes > 0) instruments.outputBytes.add(bytes, { [SEMCONV.genAiToolName]: tool });
}

/**
 * The CLIENT span of one command sent to the host, from its send to its answer. Its children come
 * from what the broker reports: an approval wait from the progress line that names the approval
 * (sent as the wait begins) to the first report that no longer names it (the next progress line,
 * or the answer: then at the start of the run); the command's run from the `durationMs` a pack
 * command's answer carries, placed to end at the answer (the host's end record follows the run by
 * well under a millisecond).
 */
function hostCallSpan(
  command: string,
  args: Readonly<Record<string, unknown>> | undefined,
  parent: import('@opentelemetry/api').Context,
  scope: Omit<Scope, 'propagator'>,
) {
  const { api, tracer, instruments } = scope;
  const span = tracer.startSpan(
    `broker run ${command}`,
    {
      kind: api.SpanKind.CLIENT,
      attributes: {
        'harness.command': command,
        ...(args === undefined ? {} : { 'harness.command.args': argsAttribute(args) }),
      },
    },
    parent,
  );
  const inside = api.trace.setSpan(parent, span);
  const sent = Date.now();
  // When the host's checks were over: the first approval wait's start, else the run's start.
  let checked: number | undefined;
  let wait: { span: Span; id: string; started: number } | undefined;
  // `at` (ms since the epoch): when the wait is known to have ended, if before now.
  const endWait = (at = Date.now()) => {
    if (wait === undefined) return;
    const end = Math.max(wait.started, at);
    wait.span.end(end);
    instruments.approvalsPending.add(-1);
    instruments.approvalWait.record((end - wait.started) / 1000);
    wait = undefined;
  };
  return {
    progress(p: RunProgress) {
      if (p.approval !== undefined && wait?.id !== p.approval.id) {
        endWait();
        checked ??= Date.now();
        wait = {
          id: p.approval.id,
          started: Date.now(),
          span: tracer.startSpan(
            'approval wait',
            { attributes: { 'harness.approval.id': p.approval.id, 'harness.command': command } },
            inside,
          ),
        };
        instruments.approvalsPending.add(1);
      } else if (p.approval === undefined) {
        endWait();
      }
    },
    settled(outcome: SendOutcome) {
      const end = Date.now();
      const ran = outcome.kind === 'ran' ? ranMs(outcome.body.durationMs) : undefined;
      // A wait no progress line saw end ended before the command's run began, at the latest.
      endWait(end - (ran ?? 0));
      if (outcome.kind === 'lost' || outcome.kind === 'not_sent') {
        span.setAttribute(SEMCONV.errorType, outcome.kind === 'lost' ? 'answer_lost' : outcome.code);
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      } else {
        const answer = outcome;
        // The host's part before the run (or before the wait, or the whole answer of a refusal).
        tracer
          .startSpan(
            `broker check ${command}`,
            { startTime: sent, attributes: { 'harness.command': command } },
            inside,
          )
          .end(Math.max(sent, checked ?? end - (ran ?? 0)));
        span.setAttributes({
          'harness.answer.code': answer.code,
          'harness.answer.may_have_landed': answer.mayHaveLanded,
          ...(answer.reason === undefined ? {} : { 'harness.answer.reason': answer.reason }),
        });
        if (!answer.ok) {
          span.setAttribute(SEMCONV.errorType, answer.reason ?? answer.code);
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        }
        if (answer.code === 'refused' || answer.code === 'forbidden')
          instruments.refusals.add(1, { 'harness.refusal.code': answer.reason ?? answer.code });
        if (ran !== undefined) {
          tracer
            .startSpan(
              `exec ${command}`,
              { startTime: end - ran, attributes: { 'harness.command': command } },
              inside,
            )
            .end(end);
          instruments.execDuration.record(ran / 1000, { 'harness.command': command });
        }
      }
      span.end();
    },
  };
}

/**
 * The span of an answer's measurement against the run's ceiling (under the call's span, after the
 * round trip): whether it was admitted or withheld, and why.
 */
function measureSpan(
  command: string,
  m: { status: string; reasonCode?: string; startTime: number; endTime: number },
  parent: import('@opentelemetry/api').Context,
  tracer: Tracer,
): void {
  tracer
    .startSpan(
      `measure ${command}`,
      {
        startTime: m.startTime,
        attributes: {
          'harness.command': command,
          'harness.measurement.status': m.status,
          ...(m.reasonCode === undefined ? {} : { 'harness.measurement.reason': m.reasonCode }),
        },
      },
      parent,
    )
    .end(m.endTime);
}

/** The most characters of argument values a span carries; longer JSON is cut and marked. */
export const ARGS_ATTRIBUTE_MAX = 4096;

/** A call's argument values as one span attribute: their JSON, cut at {@link ARGS_ATTRIBUTE_MAX}. */
function argsAttribute(args: Readonly<Record<string, unknown>>): string {
  const json = JSON.stringify(args);
  return json.length <= ARGS_ATTRIBUTE_MAX ? json : `${json.slice(0, ARGS_ATTRIBUTE_MAX)}…(cut)`;
}

/** How long a pack command's process ran, as its answer says it, where that is a time at all. */
function ranMs(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
