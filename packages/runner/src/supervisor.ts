// The supervisor: one process that runs the receiver, the scheduler and the resident harnesses, and
// carries out spawn plans with @harness/exec (argv and file delivery) or the PTY path (stdin
// delivery), with timeouts, output bounds, a concurrency limit and a record of every run.
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { LoadedEnvelope, RunTrigger } from '@harness/events';
import { readEnvelope } from '@harness/events/node';
import { ExecError, run as exec, type RunOutcome } from '@harness/exec';
import { Cron } from 'croner';
import { RunnerError, RunnerErrorCode } from './errors';
import { RunnerMetrics } from './metrics';
import { observeRun } from './observe';
import { planSpawn, type SpawnPlan } from './plan';
import { runWithPty } from './pty';
import { createReceiver } from './receiver';
import type { RunRecord } from './records';
import type { AgentKind } from './schema';
import { webhookSourceName } from './source-name';
import { RunStore } from './store';
import type { Harness, RunnerConfig, Source } from './types';

/** Options of a {@link Supervisor}. */
export interface SupervisorOptions {
  /** The instance directory; the runner keeps `runner/` under it (runs.db, events/, jobs/, logs/, audit.log). */
  readonly instanceDir: string;
  /** The runner's environment: secrets (`secret_env`), `PATH`, `HOME`, `env_inherit`. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Delay before a resident harness that exited is started again. Default 5 s. */
  readonly residentRestartMs?: number;
  /** One line per notable event (warnings, run ends). Default: stderr. */
  readonly log?: (line: string) => void;
  /**
   * How to start `harness serve` for harnesses with `tools`: its argv up to the verb, e.g.
   * `[process.execPath, '/path/to/harness.js']`. Without it such a run fails with `tools_unavailable`.
   */
  readonly serveArgv?: readonly string[];
  /**
   * Told each run's final record once it is written (its status, reason, times): how
   * `harness runner start --otel` makes a span of each run. Whatever it throws is ignored.
   */
  readonly onRunEnded?: (record: RunRecord) => void;
}

/** The runner's directory layout under an instance. */
export function runnerPaths(instanceDir: string) {
  const root = join(instanceDir, 'runner');
  return {
    root,
    db: join(root, 'runs.db'),
    events: join(root, 'events'),
    jobs: join(root, 'jobs'),
    logs: join(root, 'logs'),
    audit: join(root, 'audit.log'),
  };
}

type Outcome = Pick<RunRecord, 'status' | 'reason' | 'exit_code' | 'signal' | 'message'> &
  Partial<Pick<RunRecord, 'observation'>>;

/** The transcript source that observes a harness: its adapter, or a command's `transcripts` (TM-86, TM-121). */
function observedAs(h: Harness): AgentKind | undefined {
  if (h.kind === 'command') return h.transcripts;
  if (h.kind === 'generic') return undefined;
  return h.kind;
}

/** Runs harnesses and records every run. */
export class Supervisor {
  readonly store: RunStore;
  readonly metrics = new RunnerMetrics();
  readonly paths: ReturnType<typeof runnerPaths>;
  private readonly env: Readonly<Record<string, string | undefined>>;
  private readonly log: (line: string) => void;
  private readonly queue: string[] = [];
  private readonly active = new Map<string, Promise<void>>();
  private readonly crons: Cron[] = [];
  private readonly abort = new AbortController();
  private server: Server | undefined;
  private stopping = false;

  constructor(
    readonly config: RunnerConfig,
    private readonly options: SupervisorOptions,
  ) {
    this.paths = runnerPaths(options.instanceDir);
    for (const dir of [this.paths.root, this.paths.events, this.paths.jobs, this.paths.logs])
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.store = new RunStore(this.paths.db);
    this.env = options.env ?? process.env;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /**
   * Starts everything the file declares: recovers runs a previous process left (a `running` run is
   * marked failed with reason `runner_restarted`; a `pending` one is started), prunes left-over
   * prompt files, then the receiver (when `listen` is set), the schedules and the resident harnesses.
   * Throws {@link RunnerError} when a source's secret variable is unset. Returns the receiver's URL.
   */
  async start(): Promise<{ url?: string }> {
    const secrets = new Map<string, string>();
    for (const s of this.config.sources) {
      const secret = this.env[s.secretEnv];
      if (secret === undefined || secret === '') {
        throw new RunnerError(
          RunnerErrorCode.schema,
          `source ${s.id}: the environment variable ${s.secretEnv} (its secret_env) is not set; export the webhook secret in it`,
        );
      }
      secrets.set(s.id, secret);
    }
    for (const r of this.store.list({ status: 'running' })) {
      this.store.update(r.id, {
        status: 'failed',
        reason: 'runner_restarted',
        ended_at: new Date().toISOString(),
        message: 'the runner stopped while this run was running',
      });
    }
    this.pruneAllPromptFiles();
    let url: string | undefined;
    if (this.config.listen !== undefined && this.config.sources.length > 0) {
      const server = createReceiver({
        config: this.config,
        store: this.store,
        runnerDir: this.paths.root,
        secrets,
        onAccepted: (ids) => this.enqueue(ids),
        newRunId: randomUUID,
        metrics: this.metrics,
      });
      this.server = server;
      const { host, port } = this.config.listen;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
    }
    for (const h of this.config.harnesses) {
      if (h.when.type === 'schedule')
        this.crons.push(new Cron(h.when.cron, () => this.enqueue([this.newRun(h, 'schedule')])));
      if (h.when.type === 'resident') void this.resident(h);
    }
    this.enqueue(this.store.list({ status: 'pending' }).map((r) => r.id));
    return url === undefined ? {} : { url };
  }

  /** Stops accepting, stops the schedules, kills every running program and waits for the records. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const c of this.crons) c.stop();
    this.queue.length = 0;
    this.abort.abort();
    const server = this.server;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.allSettled([...this.active.values()]);
    this.store.close();
  }

  /** Settles when no run is queued or in flight. */
  async idle(): Promise<void> {
    while (this.queue.length > 0 || this.active.size > 0) await Promise.allSettled([...this.active.values()]);
  }

  /**
   * A plain start by hand (`harness trigger`): runs the harness once now and returns its record.
   * With `eventFile`, replays that envelope: `typed` is extracted again from its stored body with the
   * trigger source's scheme and trusted actors. An unresolved required value is a start error
   * ({@link RunnerError} `template_unresolved`, TM-81): nothing is recorded or spawned.
   */
  async runNow(harnessId: string, options: { eventFile?: string } = {}): Promise<RunRecord> {
    const h = this.harness(harnessId);
    const replay = options.eventFile === undefined ? undefined : await this.loadEvent(h, options.eventFile);
    const event = replay?.event;
    const id = randomUUID();
    // Planned as `execute` will plan it, so a replay's `{{run.source}}` has its value here too.
    const source = replay === undefined ? undefined : webhookSourceName(replay.source.id);
    const plan = this.plan(h, id, 'manual', event, options.eventFile, source);
    if (!plan.ok) {
      if (plan.code !== 'generic_prompt')
        this.metrics.renderFailures.inc({ harness: h.id, reason: plan.code });
      throw new RunnerError(
        plan.code === 'template_unresolved'
          ? RunnerErrorCode.template_unresolved
          : RunnerErrorCode.render_refused,
        `harness ${h.id}: ${plan.message}`,
      );
    }
    this.store.insert({
      id,
      harness: h.id,
      status: 'pending',
      trigger: 'manual',
      event_file: options.eventFile ?? null,
      ...(replay ? { source: replay.source.id } : {}),
    });
    await this.execute(id);
    return this.store.get(id) as RunRecord;
  }

  private harness(id: string): Harness {
    const h = this.config.harnesses.find((x) => x.id === id);
    if (h === undefined) {
      throw new RunnerError(
        RunnerErrorCode.unknown_harness,
        `no harness "${id}"; the runner file declares: ${this.config.harnesses.map((x) => x.id).join(', ') || '(none)'}`,
      );
    }
    return h;
  }

  /** The envelope at `file`, read for the source that triggers `h`, and that source. */
  private async loadEvent(h: Harness, file: string): Promise<{ source: Source; event: LoadedEnvelope }> {
    const source =
      h.when.type === 'trigger'
        ? this.config.sources.find((s) => s.id === (h.when as { source: string }).source)
        : undefined;
    if (source === undefined) {
      throw new RunnerError(
        RunnerErrorCode.unknown_source,
        `harness ${h.id} has no trigger source, so an event cannot be replayed into it; replay into a harness with a trigger`,
      );
    }
    const result = await readEnvelope(file, {
      scheme: source.scheme,
      trustedActors: source.trustedActors,
      source: webhookSourceName(source.id),
    });
    if (!result.ok)
      throw new RunnerError(
        RunnerErrorCode.file_unreadable,
        `event ${file}: ${result.issues.map((i) => i.message).join('; ')}`,
      );
    return { source, event: result.value };
  }

  private newRun(h: Harness, trigger: string): string {
    const id = randomUUID();
    this.store.insert({ id, harness: h.id, status: 'pending', trigger });
    return id;
  }

  private enqueue(ids: readonly string[]): void {
    if (this.stopping) return;
    this.queue.push(...ids);
    this.pump();
  }

  private pump(): void {
    while (!this.stopping && this.active.size < this.config.concurrency && this.queue.length > 0) {
      const id = this.queue.shift() as string;
      const p = this.execute(id).finally(() => {
        this.active.delete(id);
        this.pump();
      });
      this.active.set(id, p);
    }
  }

  private async resident(h: Harness): Promise<void> {
    while (!this.stopping) {
      const id = this.newRun(h, 'resident');
      const p = this.execute(id);
      this.active.set(id, p);
      await p;
      this.active.delete(id);
      if (this.stopping) return;
      await new Promise((resolve) => setTimeout(resolve, this.options.residentRestartMs ?? 5000).unref());
    }
  }

  private plan(
    h: Harness,
    id: string,
    trigger: RunTrigger,
    event: LoadedEnvelope | undefined,
    eventFile: string | undefined,
    source?: string,
  ) {
    return planSpawn(
      h,
      {
        id,
        trigger,
        ...(source !== undefined ? { source } : {}),
        startedAt: new Date(),
        ...(event !== undefined && eventFile !== undefined ? { event: { ...event, file: eventFile } } : {}),
        jobsDir: this.paths.jobs,
        parentEnv: this.env,
        ...(this.options.serveArgv !== undefined
          ? { serve: { argv: this.options.serveArgv, instanceDir: join(this.paths.root, 'tools', h.id) } }
          : {}),
      },
      { onWarn: (w) => this.log(`warning: harness ${h.id}: ${w.message}`) },
    );
  }

  /** Hands a run's final record to `onRunEnded`, which can never fail the run. */
  private tellEnded(id: string): void {
    const ended = this.options.onRunEnded === undefined ? undefined : this.store.get(id);
    if (ended === undefined) return;
    try {
      this.options.onRunEnded?.(ended);
    } catch {
      // A span that could not be made is not the run's concern.
    }
  }

  /** Carries out one recorded run, from `pending` to its final status. Never throws. */
  private async execute(id: string): Promise<void> {
    const record = this.store.get(id);
    if (record === undefined || record.status !== 'pending') return;
    const finish = ({ started, ...outcome }: Outcome & { started?: number }): void => {
      const ended = new Date();
      this.store.update(id, {
        ...outcome,
        ended_at: ended.toISOString(),
        ...(started !== undefined ? { duration_ms: ended.getTime() - started } : {}),
      });
      this.metrics.runs.inc({ harness: record.harness, status: outcome.status });
      if (started !== undefined) {
        const seconds = (ended.getTime() - started) / 1000;
        this.metrics.duration.observe({ harness: record.harness, status: outcome.status }, seconds);
      }
      this.log(
        `run ${id} (${record.harness}): ${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}`,
      );
      this.tellEnded(id);
    };
    try {
      const h = this.harness(record.harness);
      const event =
        record.event_file === null ? undefined : (await this.loadEvent(h, record.event_file)).event;
      const trigger: RunTrigger =
        record.trigger === 'webhook' || record.trigger === 'schedule' ? record.trigger : 'manual';
      // The record holds the source's id (`gh`); templates read its name (`webhook.gh`, TM-21).
      const plan = this.plan(
        h,
        id,
        trigger,
        event,
        record.event_file ?? undefined,
        record.source === null ? undefined : webhookSourceName(record.source),
      );
      if (!plan.ok) {
        if (plan.code === 'template_unresolved' || plan.code === 'render_refused')
          this.metrics.renderFailures.inc({ harness: h.id, reason: plan.code });
        const skipped = plan.code === 'template_unresolved';
        if (plan.code === 'template_unresolved') this.store.update(id, { path: plan.path });
        finish({
          status: skipped ? 'skipped' : 'failed',
          reason: plan.code,
          exit_code: null,
          signal: null,
          message: plan.message,
        });
        return;
      }
      if (plan.untrustedRenders > 0)
        this.metrics.untrustedRenders.inc({ harness: h.id }, plan.untrustedRenders);
      await this.spawn(id, plan.plan, finish, observedAs(h));
    } catch (error) {
      finish({
        status: 'failed',
        reason: error instanceof RunnerError ? error.code : 'internal_error',
        exit_code: null,
        signal: null,
        message: (error as Error).message,
      });
    }
  }

  private async spawn(
    id: string,
    plan: SpawnPlan,
    finish: (o: Outcome & { started?: number }) => void,
    observed: AgentKind | undefined,
  ): Promise<void> {
    const started = Date.now();
    const logFile = join(this.paths.logs, `${id}.log`);
    this.store.update(id, {
      status: 'running',
      started_at: new Date(started).toISOString(),
      prompt_delivery: plan.delivery,
      stdin_is_prompt: plan.delivery === 'stdin',
      log_file: logFile,
    });
    try {
      if (plan.promptFile !== undefined) writePrivate(plan.promptFile, plan.prompt ?? '');
      if (plan.tools !== undefined) writePrivate(plan.tools.configFile, plan.tools.configText);
      let result: { outcome: RunOutcome; exitCode: number | null; signal: string | null; output: string };
      if (plan.delivery === 'stdin') {
        result = await runWithPty({
          name: plan.name,
          args: plan.args,
          env: plan.env,
          cwd: plan.cwd,
          stdin: plan.stdin ?? '',
          timeoutMs: plan.timeoutMs,
          maxOutputBytes: plan.maxOutputBytes,
          signal: this.abort.signal,
        });
      } else {
        const r = await exec({
          argv: [plan.name, ...plan.args],
          env: plan.env,
          cwd: plan.cwd,
          timeoutMs: plan.timeoutMs,
          maxOutputBytes: plan.maxOutputBytes,
          signal: this.abort.signal,
        });
        result = { outcome: r.outcome, exitCode: r.exitCode, signal: r.signal, output: r.stdout + r.stderr };
      }
      writePrivate(logFile, result.output);
      const ok = result.outcome === 'exited' && result.exitCode === 0;
      const observation =
        observed === undefined
          ? null
          : observeRun(observed, { cwd: plan.cwd, env: plan.env, startedAt: started });
      finish({
        started,
        observation,
        status: ok ? 'succeeded' : 'failed',
        reason: ok ? null : result.outcome === 'exited' ? 'exit_code' : result.outcome,
        exit_code: result.exitCode,
        signal: result.signal,
        message: ok ? null : result.outcome === 'exited' ? `exited with ${result.exitCode}` : result.outcome,
      });
    } catch (error) {
      const reason = error instanceof ExecError ? 'spawn_failed' : 'internal_error';
      finish({
        started,
        status: 'failed',
        reason,
        exit_code: null,
        signal: null,
        message: (error as Error).message,
      });
    } finally {
      if (plan.promptFile !== undefined) rmSync(plan.promptFile, { force: true });
      if (plan.tools !== undefined) rmSync(plan.tools.configFile, { force: true });
    }
  }

  /**
   * Prompt files and MCP configuration files live only while their run does; any a crash left are
   * removed at start (TM-94).
   */
  private pruneAllPromptFiles(): void {
    for (const dir of readdirSync(this.paths.jobs)) {
      for (const f of readdirSync(join(this.paths.jobs, dir)))
        if (f.endsWith('.prompt') || f.endsWith('.mcp.json')) unlinkSync(join(this.paths.jobs, dir, f));
    }
  }
}

/** Writes a file created with mode 0600 (never readable by others, not even for an instant). */
function writePrivate(file: string, text: string): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  rmSync(file, { force: true });
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
