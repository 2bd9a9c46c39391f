// The fast-path host client: the broker's socket protocol spoken through `@harness/protocol`'s one
// client (docs/protocol.md), with the same outcomes the CLI client gives.
import type { ReceivedAnswer } from '@harness/protocol';
import { type BrokerFailure, createBrokerClient } from '@harness/protocol/client';
import { readAnswer } from './answer';
import { callWaitMs, DEFAULT_HOST_TIMEOUT_MS } from './defaults';
import type { CallOptions, CallRequest, HostClient, ListOutcome, SendOutcome } from './types';

/** Options of {@link createSocketHostClient}. */
export interface SocketClientOptions {
  /** The broker's Unix socket. */
  socketPath: string;
  /**
   * Per request; a request unanswered by then reads as lost. Default 120 s. A call whose command
   * names its own timeout waits that plus a margin when longer (`callWaitMs`).
   */
  timeoutMs?: number;
}

/**
 * A host client that speaks the broker's socket protocol directly: one connection per client,
 * requests multiplexed by id, reconnecting after a failure. Same broker, same grants and
 * attribution as the CLI path, without a process start per call.
 *
 * Each new connection first sends `hello`; a broker that does not answer it as `loom-broker/2`
 * (`unsupported_protocol`, an unreadable answer, none in time) is treated like one that cannot be
 * reached: the connection is dropped and no request waiting on it is sent.
 */
export function createSocketHostClient(options: SocketClientOptions): HostClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_HOST_TIMEOUT_MS;
  const client = createBrokerClient({ socketPath: options.socketPath, timeoutMs });
  return {
    kind: 'socket',
    async list(opts: CallOptions & { ifNoneMatch?: string | undefined } = {}): Promise<ListOutcome> {
      if (opts.signal?.aborted) return { ok: false, code: 'cancelled' };
      const r = await client.list({
        ...(opts.jobId !== undefined ? { jobId: opts.jobId } : {}),
        ...(opts.ifNoneMatch !== undefined ? { ifNoneMatch: opts.ifNoneMatch } : {}),
      });
      if (!r.ok) return { ok: false, code: 'command_failed' };
      const etag = typeof r.value?.etag === 'string' ? r.value.etag : undefined;
      // `unchanged` counts only for the etag the caller holds; anything else is read as a listing.
      if (r.value?.unchanged === true && etag !== undefined && etag === opts.ifNoneMatch)
        return { ok: true, unchanged: true, etag };
      return { ok: true, listing: r.value, etag };
    },
    async run(req: CallRequest, opts: CallOptions = {}): Promise<SendOutcome> {
      if (opts.signal?.aborted || opts.stop?.aborted) return { kind: 'not_sent', code: 'cancelled' };
      const r = await client.run(
        {
          command: req.command,
          args: req.args,
          readOnly: opts.readOnly === true,
          ...(req.loomId !== undefined ? { loomId: req.loomId } : {}),
          ...(req.expectedVersion !== undefined ? { expectedVersion: req.expectedVersion } : {}),
          ...(opts.jobId !== undefined ? { jobId: opts.jobId } : {}),
          ...(opts.session !== undefined ? { session: opts.session } : {}),
        },
        {
          timeoutMs: callWaitMs(timeoutMs, opts.commandTimeoutMs),
          ...(opts.stop !== undefined ? { signal: opts.stop } : {}),
          ...(opts.onProgress !== undefined ? { onProgress: opts.onProgress } : {}),
        },
      );
      if (r.ok) {
        return readAnswer(r.value) ?? { kind: 'lost' };
      }
      return failureOutcome(r.failure, req.command);
    },
    close: () => client.close(),
  };
}

/** What a failed request comes to for the harness. */
function failureOutcome(f: BrokerFailure, command: string): SendOutcome {
  if (f.kind === 'busy') return { kind: 'not_sent', code: 'busy' };
  if (f.kind === 'cancelled') return { kind: 'not_sent', code: 'cancelled' };
  if (f.kind === 'unreachable' || f.kind === 'incompatible')
    return { kind: 'not_sent', code: 'command_failed' };
  if (f.kind === 'lost') return { kind: 'lost' };
  // The broker could not handle the request itself, so nothing ran — except an internal
  // failure, after which nobody can say.
  if (f.code === 'bad_request' || f.code === 'request_too_large')
    return { kind: 'not_sent', code: 'invalid_input' };
  // `busy` (envelope): no slot of the connection freed within the broker's queue wait; it did not start.
  if (f.code === 'unsupported_protocol' || f.code === 'busy')
    return { kind: 'not_sent', code: 'command_failed' };
  // The broker refused the request before it reached the command layer: the same refusal the
  // CLI path reports as an answer.
  if (f.code === 'forbidden') return brokerForbidden(command);
  return { kind: 'lost' };
}

/** The answer to a call the broker refused as a request (`forbidden`): nothing reached the command layer. */
function brokerForbidden(command: string): ReceivedAnswer {
  return {
    ok: false,
    id: command,
    code: 'forbidden',
    mayHaveLanded: false,
    completed: [],
    kind: 'refused',
    body: { message: `the broker refused the call to ${command} before it reached the command layer` },
  };
}
