// The client harness keeps for one upstream server: started on first need, restarted with backoff
// after it dies, one tools/call at a time mapped to an outcome the broker reports as it is.
import { performance } from 'node:perf_hooks';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { LogRing } from './logs';
import { resultText } from './result-text';
import { Session } from './session';
import { plannedConfinement } from './spawn';
import type {
  CallOptions,
  CallOutcome,
  ListingOutcome,
  ServerClient,
  ServerSpec,
  ServerState,
} from './types';

/** The first wait before a restart after a failure; it doubles with each failure in a row. */
export const BACKOFF_FIRST_MS = 500;
/** The longest wait between two start attempts. */
export const BACKOFF_MAX_MS = 30_000;
/** A server that stayed up this long before it died starts its backoff afresh. */
const STABLE_MS = 60_000;
/** The longest delay a Node timer takes (longer ones fire at once). */
const TIMER_MAX_MS = 2 ** 31 - 1;

type Phase =
  | { readonly kind: 'idle' }
  | { readonly kind: 'starting'; readonly session: Session; readonly done: Promise<Session | string> }
  | { readonly kind: 'ready'; readonly session: Session }
  | { readonly kind: 'failed'; readonly error: string; readonly at: number }
  | { readonly kind: 'closed' };

/** The wait after `failures` failures in a row: 0.5 s, 1 s, 2 s … at most 30 s. */
export function backoffMs(failures: number): number {
  return failures <= 0 ? 0 : Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (failures - 1));
}

function timerMs(ms: number): number {
  return Math.min(Math.max(0, ms), TIMER_MAX_MS);
}

class UpstreamClient implements ServerClient {
  readonly id: string;
  private phase: Phase = { kind: 'idle' };
  private failures = 0;
  private starts = 0;
  private confinement: ServerState['confinement'];
  private readonly ring: LogRing;
  private readonly listeners = new Set<() => void>();
  /** `legacy` once the server ended the connection on the version question (session.ts). */
  private negotiation: 'auto' | 'legacy' = 'auto';

  constructor(private readonly spec: ServerSpec) {
    this.id = spec.id;
    this.ring = new LogRing(spec.logBytes ?? 64 * 1024);
    this.confinement =
      spec.transport.kind === 'stdio'
        ? plannedConfinement(spec.transport)
        : { confined: false, reason: 'an HTTP server runs outside harness; harness does not confine it' };
  }

  async tools(): Promise<ListingOutcome> {
    const session = await this.ready();
    return typeof session === 'string' ? { ok: false, message: session } : { ok: true, tools: session.tools };
  }

  /** The ready session, starting one if none is and the backoff allows; else why not. */
  private ready(): Promise<Session | string> {
    const phase = this.phase;
    if (phase.kind === 'closed') return Promise.resolve(`server ${this.id} is closed`);
    if (phase.kind === 'ready') return Promise.resolve(phase.session);
    if (phase.kind === 'starting') return phase.done;
    if (phase.kind === 'failed') {
      const next = phase.at + backoffMs(this.failures);
      const wait = next - Date.now();
      if (wait > 0) {
        return Promise.resolve(
          `${phase.error}; the next start attempt is in ${wait} ms (at ${new Date(next).toISOString()})`,
        );
      }
    }
    return this.start();
  }

  private start(): Promise<Session | string> {
    this.starts++;
    return this.launch(this.negotiation);
  }

  /**
   * Opens a session that negotiates the version (`auto`) or speaks 2025 only (`legacy`). A server
   * that ended on the version question (some 2025 servers exit on any request before `initialize`)
   * is started again at once for the 2025 handshake, and spoken to so from then on; if that start
   * fails too, the first one's failure is answered, with the log as it was (a server that exits
   * whatever it is asked).
   */
  private launch(
    negotiation: 'auto' | 'legacy',
    retrying?: { error: string; restore: () => void },
  ): Promise<Session | string> {
    const session = new Session(
      this.spec,
      this.ring,
      { died: (s) => this.died(s), toolsChanged: (s) => this.toolsChanged(s) },
      negotiation,
    );
    const done = session.open().then(
      () => {
        if (this.phase.kind === 'closed') return `server ${this.id} is closed`;
        if (retrying !== undefined) this.negotiation = 'legacy';
        this.phase = { kind: 'ready', session };
        return session;
      },
      (error: Error): Promise<Session | string> | string => {
        if (this.phase.kind === 'closed') return error.message;
        if (retrying !== undefined) {
          retrying.restore();
          this.fail(retrying.error);
          return retrying.error;
        }
        if (session.diedOnProbe) {
          const restore = this.ring.mark();
          this.ring.write(
            `[harness] server ${this.id} ended on server/discover; started again for the 2025 handshake`,
          );
          return this.launch('legacy', { error: error.message, restore });
        }
        this.fail(error.message);
        return error.message;
      },
    );
    this.phase = { kind: 'starting', session, done };
    return done;
  }

  private fail(error: string): void {
    this.failures++;
    this.phase = { kind: 'failed', error, at: Date.now() };
  }

  private died(session: Session): void {
    if (this.phase.kind !== 'ready' || this.phase.session !== session) return;
    if (Date.now() - session.openedAt >= STABLE_MS) this.failures = 0;
    this.fail(`server ${this.id} ${session.deathDescription()}`);
  }

  private toolsChanged(session: Session): void {
    if (this.phase.kind !== 'ready' || this.phase.session !== session) return;
    for (const listener of this.listeners) listener();
  }

  async call(name: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallOutcome> {
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    const cancelledBefore = () => ({
      status: 'cancelled' as const,
      message: `the call of ${name} on server ${this.id} was cancelled before it was sent`,
      mayHaveLanded: false,
      durationMs: durationMs(),
    });
    if (opts.signal?.aborted) return cancelledBefore();
    const session = await this.ready();
    if (typeof session === 'string') {
      return { status: 'failed', message: session, mayHaveLanded: false, durationMs: durationMs() };
    }
    if (opts.signal?.aborted) return cancelledBefore();
    const abort = new AbortController();
    let why: 'timeout' | 'cancelled' | undefined;
    const timer = setTimeout(() => {
      why ??= 'timeout';
      abort.abort(new Error(`timed out after ${opts.timeoutMs} ms`));
    }, timerMs(opts.timeoutMs));
    const onCancel = () => {
      why ??= 'cancelled';
      abort.abort(new Error('cancelled by the caller'));
    };
    opts.signal?.addEventListener('abort', onCancel, { once: true });
    const onProgress = opts.onProgress;
    const watch = onProgress === undefined ? undefined : session.watchProgress(onProgress);
    try {
      const params = { name, arguments: args, ...(watch ? { _meta: { progressToken: watch.token } } : {}) };
      const result = await session.client.request(
        { method: 'tools/call', params },
        {
          signal: abort.signal,
          // The SDK's own bound stays past ours: which of the two fired is then never in doubt.
          timeout: timerMs(opts.timeoutMs + 60_000),
        },
      );
      const { text, structured, exceeded } = resultText(result, opts.maxOutputBytes);
      return {
        status: result.isError === true ? 'tool_error' : 'ok',
        text,
        ...(structured === undefined ? {} : { structured }),
        outputExceeded: exceeded,
        durationMs: durationMs(),
      };
    } catch (error) {
      return this.callFailure(name, error, why, session, opts.timeoutMs, durationMs());
    } finally {
      clearTimeout(timer);
      watch?.stop();
      opts.signal?.removeEventListener('abort', onCancel);
    }
  }

  /** The outcome of a call that got no result: which bound, cancel or death ended it. */
  private callFailure(
    name: string,
    error: unknown,
    why: 'timeout' | 'cancelled' | undefined,
    session: Session,
    timeoutMs: number,
    durationMs: number,
  ): CallOutcome {
    const call = `the call of ${name} on server ${this.id}`;
    if (why === 'timeout') {
      const message = `${call} timed out after ${timeoutMs} ms; it was cancelled upstream, and may have run`;
      return { status: 'timeout', message, mayHaveLanded: 'unknown', durationMs };
    }
    if (why === 'cancelled') {
      const message = `${call} was cancelled by the caller; it was cancelled upstream, and may have run`;
      return { status: 'cancelled', message, mayHaveLanded: 'unknown', durationMs };
    }
    if (session.fault?.kind === 'too_large') {
      const message = `${call} failed: ${session.fault.message}; the connection was closed, and the tool may have run`;
      return { status: 'too_large', message, mayHaveLanded: 'unknown', durationMs };
    }
    if (session.dead) {
      const message = `${call} ended because the server ${session.deathDescription()}; the tool may have run`;
      return { status: 'died', message, mayHaveLanded: 'unknown', durationMs };
    }
    const text = error instanceof Error ? error.message : String(error);
    // An error response is the server refusing the request (unknown tool, bad arguments).
    const refused = error instanceof ProtocolError && error.code !== ProtocolErrorCode.InternalError;
    return {
      status: 'failed',
      message: `${call} failed: ${text}`,
      mayHaveLanded: refused ? false : 'unknown',
      durationMs,
    };
  }

  state(): ServerState {
    const phase = this.phase;
    const session = phase.kind === 'starting' || phase.kind === 'ready' ? phase.session : undefined;
    if (session?.confinement !== undefined) this.confinement = session.confinement;
    const pid = session?.pid;
    return {
      id: this.id,
      state: phase.kind,
      ...(phase.kind === 'failed' ? { error: phase.error } : {}),
      confinement: this.confinement,
      restarts: Math.max(0, this.starts - 1),
      ...(pid === undefined ? {} : { pid }),
      ...(phase.kind === 'ready' ? { toolCount: phase.session.tools.length } : {}),
      ...(phase.kind === 'ready' && phase.session.protocolVersion !== undefined
        ? { protocolVersion: phase.session.protocolVersion }
        : {}),
    };
  }

  logs(): string {
    return this.ring.text();
  }

  logVersion(): number {
    return this.ring.version;
  }

  onToolsChanged(listener: () => void): () => void {
    const own = () => listener();
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }

  async close(): Promise<void> {
    const phase = this.phase;
    this.phase = { kind: 'closed' };
    if (phase.kind === 'starting' || phase.kind === 'ready') await phase.session.close();
    if (phase.kind === 'starting') await phase.done;
  }
}

/** A client for the upstream server `spec` describes; nothing starts before the first need. */
export function createServerClient(spec: ServerSpec): ServerClient {
  return new UpstreamClient(spec);
}
