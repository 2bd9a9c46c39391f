// Prometheus metrics of one runner (prom-client), served at GET /metrics on the receiver's address.
import { Counter, Histogram, Registry } from 'prom-client';

/** The runner's metrics, in a registry of their own (nothing global). */
export class RunnerMetrics {
  readonly registry = new Registry();
  /** Runs that could not be planned because a template did not render (TM-130), by harness and reason. */
  readonly renderFailures = new Counter({
    name: 'harness_template_render_failures_total',
    help: 'Template renders that failed (template_unresolved, render_refused), by harness and reason.',
    labelNames: ['harness', 'reason'] as const,
    registers: [this.registry],
  });
  /** Values rendered inside the untrusted fence (TM-131), by harness. */
  readonly untrustedRenders = new Counter({
    name: 'harness_template_untrusted_renders_total',
    help: 'Values rendered inside the untrusted fence, by harness.',
    labelNames: ['harness'] as const,
    registers: [this.registry],
  });
  /** Finished runs by harness and outcome. */
  readonly runs = new Counter({
    name: 'harness_runs_total',
    help: 'Finished runs, by harness and status (succeeded, failed, skipped).',
    labelNames: ['harness', 'status'] as const,
    registers: [this.registry],
  });
  /** How long runs took, by harness and outcome. */
  readonly duration = new Histogram({
    name: 'harness_run_duration_seconds',
    help: 'Wall-clock duration of runs that started a process, by harness and status.',
    labelNames: ['harness', 'status'] as const,
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600],
    registers: [this.registry],
  });
  /** Webhook deliveries by source and outcome (accepted, bad_signature, too_large, …). */
  readonly deliveries = new Counter({
    name: 'harness_webhook_deliveries_total',
    help: 'Webhook deliveries, by source and outcome.',
    labelNames: ['source', 'outcome'] as const,
    registers: [this.registry],
  });

  /** The exposition text. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
