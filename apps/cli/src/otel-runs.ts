// OpenTelemetry for `harness runner start` (docs/observability.md, "The runner"): a span of each
// run once it has ended, from the moment it was recorded to its end, with a child span for the
// program's own run. Made from the run's final record, so a span says exactly what `harness runs`
// says: names, ids, status, reason, exit code; never the event, the prompt or the output.
import type { RunRecord } from '@harness/runner';
import { SEMCONV, startTracerProvider, type TelemetryOptions } from './otel';

/** The runner's tracing, started. */
export interface RunTracing {
  /** Makes the spans of one ended run. */
  runEnded(record: RunRecord): void;
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/** Starts a tracer provider exporting the runs' spans over OTLP. */
export async function startRunTracing(
  options: TelemetryOptions,
  serviceVersion: string,
): Promise<RunTracing> {
  const [api, { tracerProvider }] = await Promise.all([
    import('@opentelemetry/api'),
    startTracerProvider(options, serviceVersion),
  ]);
  const tracer = tracerProvider.getTracer('harness-runner', serviceVersion);
  return {
    runEnded(record) {
      const created = Date.parse(record.created_at);
      const ended = record.ended_at === null ? Date.now() : Date.parse(record.ended_at);
      const span = tracer.startSpan(`run ${record.harness}`, {
        kind: api.SpanKind.CONSUMER,
        startTime: created,
        attributes: runAttributes(record),
      });
      if (record.status === 'failed') {
        span.setAttribute(SEMCONV.errorType, record.reason ?? 'failed');
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      if (record.started_at !== null) {
        tracer
          .startSpan(
            `exec ${record.harness}`,
            {
              startTime: Date.parse(record.started_at),
              attributes: { 'harness.runner.harness': record.harness },
            },
            api.trace.setSpan(api.ROOT_CONTEXT, span),
          )
          .end(ended);
      }
      span.end(ended);
    },
    shutdown: async () => {
      await tracerProvider.shutdown().catch(() => undefined);
    },
  };
}

/** What a run's span carries: the fields `harness runs` prints, without a value from the event. */
function runAttributes(r: RunRecord): Record<string, string | number> {
  return {
    'harness.runner.harness': r.harness,
    'harness.run.id': r.id,
    'harness.run.trigger': r.trigger,
    'harness.run.status': r.status,
    ...(r.reason === null ? {} : { 'harness.run.reason': r.reason }),
    ...(r.source === null ? {} : { 'harness.run.source': r.source }),
    ...(r.delivery === null ? {} : { 'harness.run.delivery': r.delivery }),
    ...(r.exit_code === null ? {} : { 'process.exit.code': r.exit_code }),
  };
}
