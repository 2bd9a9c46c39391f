// GET /metrics: Prometheus text of what the instance's store records, for a scrape job that holds
// the console's metrics token (docs/observability.md, "The console"). Every host of the instance
// writes the store, so these count what all of them did: command calls and refusals, run times by
// confinement, decisions by where they were given, and approvals waiting now. The audit is read
// once, then only past the last event read; nothing read is an argument value or an output.
import { timingSafeEqual } from 'node:crypto';
import type { AuditEvent, Store } from '@harness/store';
import type { Context, Hono } from 'hono';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ApiErrorCode } from '../api-errors';
import type { ConsoleEnv } from './context';
import { apiError } from './http';
import { transportRefusal } from './security';
import type { Site } from './site';

/** The path of the metrics. */
export const METRICS_PATH = '/metrics';

/** The events read from the audit per store request. */
const AUDIT_BATCH = 1000;

// From 5 ms to 10 minutes, as serve's histogram of the same runs.
const SECOND_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** The store's metrics, in a registry of their own, brought up to date at each scrape. */
export class StoreMetrics {
  readonly registry = new Registry();
  private readonly calls = new Counter({
    name: 'harness_command_calls_total',
    help: 'Command calls the hosts of the instance answered, by command and outcome (from the audit).',
    labelNames: ['harness_command', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'harness_command_refusals_total',
    help: 'Command calls refused or forbidden, by code (the host reason, such as approval_required).',
    labelNames: ['harness_refusal_code'] as const,
    registers: [this.registry],
  });
  private readonly execDuration = new Histogram({
    name: 'harness_exec_duration_seconds',
    help: 'How long pack commands ran, by command and confinement (bwrap, … or none).',
    labelNames: ['harness_command', 'harness_sandbox'] as const,
    buckets: SECOND_BUCKETS,
    registers: [this.registry],
  });
  private readonly decisions = new Counter({
    name: 'harness_approval_decisions_total',
    help: "People's decisions on approvals, by decision and where they were given (cli, console, elicitation).",
    labelNames: ['decision', 'via'] as const,
    registers: [this.registry],
  });
  private readonly pending = new Gauge({
    name: 'harness_approvals_pending',
    help: 'Approvals waiting for a person now.',
    registers: [this.registry],
  });
  /** The `seq` of the last audit event counted. */
  private after = 0;
  private scraping: Promise<string> | undefined;

  constructor(private readonly store: Store) {}

  /** The exposition text, the audit read up to now; scrapes that overlap share one read. */
  text(): Promise<string> {
    this.scraping ??= this.scrape().finally(() => {
      this.scraping = undefined;
    });
    return this.scraping;
  }

  private async scrape(): Promise<string> {
    for (;;) {
      const events = await this.store.readAuditChain(this.after, AUDIT_BATCH);
      for (const e of events) this.count(e);
      if (events.length > 0) this.after = events[events.length - 1]?.seq ?? this.after;
      if (events.length < AUDIT_BATCH) break;
    }
    this.pending.set((await this.store.listApprovals({ status: 'pending' })).length);
    return this.registry.metrics();
  }

  private count(e: AuditEvent): void {
    if (e.phase === 'approval') {
      const via = e.payload.via;
      this.decisions.inc({ decision: e.outcome, via: typeof via === 'string' ? via : 'unknown' });
      return;
    }
    if (e.phase !== 'run') return;
    this.calls.inc({ harness_command: e.command, outcome: e.outcome });
    if (e.outcome === 'refused' || e.outcome === 'forbidden')
      this.refusals.inc({ harness_refusal_code: e.reason ?? e.code });
    const run = e.payload.run as { durationMs?: unknown; confinement?: unknown } | undefined;
    if (typeof run?.durationMs === 'number') {
      this.execDuration.observe(
        { harness_command: e.command, harness_sandbox: sandboxOf(run.confinement) },
        run.durationMs / 1000,
      );
    }
  }
}

/** The confinement a run's audit records, as a label: its mechanism, or `none`. */
function sandboxOf(confinement: unknown): string {
  const c = confinement as { confined?: unknown; mechanism?: unknown } | undefined;
  return c?.confined === true && typeof c.mechanism === 'string' ? c.mechanism : 'none';
}

/** Whether `c` carries `Authorization: Bearer <token>`, compared in constant time. */
function bearerIs(c: Context, token: string): boolean {
  const given = Buffer.from(c.req.header('authorization') ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Registers GET /metrics on `app`, ahead of the session checks: a scrape job has no session, only
 * the metrics token. The transport checks of every request come first (the Host; behind a TLS
 * proxy, https as a trusted peer says), so the token never crosses the network in clear. Without a
 * token the path answers that it is off and how to turn it on.
 */
export function registerMetrics(
  app: Hono<ConsoleEnv>,
  store: Store,
  site: Site,
  token: string | undefined,
): void {
  const metrics = token === undefined ? undefined : new StoreMetrics(store);
  app.get(METRICS_PATH, async (c) => {
    const refused = transportRefusal(c, site, c.req.header('host') ?? '');
    if (refused !== undefined) return refused;
    if (metrics === undefined || token === undefined) {
      return apiError(
        c,
        404,
        ApiErrorCode.not_found,
        '/metrics is off: start the console with --metrics-token-file <path> (or HARNESS_CONSOLE_METRICS_TOKEN) and scrape with that token as a bearer token',
      );
    }
    if (!bearerIs(c, token)) {
      return apiError(
        c,
        401,
        ApiErrorCode.unauthenticated,
        '/metrics needs Authorization: Bearer <the console metrics token>',
      );
    }
    return c.text(await metrics.text(), 200, { 'content-type': metrics.registry.contentType });
  });
}
