// The light broker client: node:net only. The `loom` CLI loads this module (and nothing heavier) for
// `command list` and `command run` over a broker, since that path runs once per agent call.
import { connect } from 'node:net';
import {
  BROKER_PROTOCOL,
  type BrokerAnswer,
  type CommandAnswer,
  type HelloResult,
  type ListResult,
} from './protocol';

/** Why a broker request produced no answer. */
export type BrokerClientFailure =
  /** The socket could not be reached: nothing was sent. */
  | { kind: 'unreachable'; message: string }
  /** The request was sent but no complete answer came back: it may have landed. */
  | { kind: 'lost'; message: string }
  /** The broker answered with an envelope error (the request was not handled). */
  | { kind: 'envelope'; code: string; message: string };

/** A broker request's outcome as data. */
export type BrokerClientResult<T> = { ok: true; value: T } | { ok: false; failure: BrokerClientFailure };

/** Options of one broker request. */
export interface BrokerCallOptions {
  /** Give up waiting for the answer after this many ms (reported as `lost`). Default: wait. */
  timeoutMs?: number;
}

let counter = 0;

// Answers carry a pack's bounded output (stdout + stderr up to its max_output, 10 MiB by default),
// so an answer line may be far longer than a request line.
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * Sends one request (without `protocol`/`id`, which are filled in) on a fresh connection to the
 * broker at `queuePath` and resolves with its `result`. Never throws: a failure is data, and
 * `unreachable` is the only kind where the caller can be sure nothing was sent.
 */
export function brokerRequest<T>(
  queuePath: string,
  request: Record<string, unknown>,
  options: BrokerCallOptions = {},
): Promise<BrokerClientResult<T>> {
  const id = `c${process.pid}-${++counter}`;
  const line = `${JSON.stringify({ ...request, protocol: BROKER_PROTOCOL, id })}\n`;
  return new Promise((resolve) => {
    let connected = false;
    let settled = false;
    let buffer = '';
    const socket = connect(queuePath);
    const finish = (result: BrokerClientResult<T>): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () =>
              finish({
                ok: false,
                failure: connected
                  ? { kind: 'lost', message: `no answer from the broker within ${options.timeoutMs} ms` }
                  : { kind: 'unreachable', message: `could not connect within ${options.timeoutMs} ms` },
              }),
            options.timeoutMs,
          );
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      socket.write(line);
    });
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (buffer.length > MAX_ANSWER_BYTES) {
        finish({ ok: false, failure: { kind: 'lost', message: 'the broker answer exceeds the line limit' } });
        return;
      }
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
        let answer: BrokerAnswer;
        try {
          answer = JSON.parse(text) as BrokerAnswer;
        } catch {
          finish({
            ok: false,
            failure: { kind: 'lost', message: 'the broker sent a line that is not JSON' },
          });
          return;
        }
        if (answer.id !== id) continue;
        if (answer.ok) finish({ ok: true, value: answer.result as T });
        else
          finish({
            ok: false,
            failure: { kind: 'envelope', code: answer.error.code, message: answer.error.message },
          });
        return;
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      finish({
        ok: false,
        failure: connected
          ? { kind: 'lost', message: `the connection to the broker failed: ${error.code ?? error.message}` }
          : {
              kind: 'unreachable',
              message: `no broker listens at ${queuePath} (${error.code ?? error.message}); start one with \`loom broker start\``,
            },
      });
    });
    socket.on('close', () => {
      finish({
        ok: false,
        failure: connected
          ? { kind: 'lost', message: 'the broker closed the connection before answering' }
          : { kind: 'unreachable', message: `no broker listens at ${queuePath}` },
      });
    });
  });
}

/** `hello`: the broker's protocol, run and agent. */
export function brokerHello(
  queuePath: string,
  options?: BrokerCallOptions,
): Promise<BrokerClientResult<HelloResult>> {
  return brokerRequest<HelloResult>(queuePath, { op: 'hello' }, options);
}

/** `list`: the manifest rows the broker's scope admits. */
export function brokerList(
  queuePath: string,
  request: { jobId?: string } = {},
  options?: BrokerCallOptions,
): Promise<BrokerClientResult<ListResult>> {
  return brokerRequest<ListResult>(queuePath, { op: 'list', ...request }, options);
}

/** `run`: one command, as the broker's agent. */
export function brokerRun(
  queuePath: string,
  request: {
    command: string;
    args: Record<string, unknown>;
    loomId?: string;
    expectedVersion?: number;
    readOnly?: boolean;
    jobId?: string;
  },
  options?: BrokerCallOptions,
): Promise<BrokerClientResult<CommandAnswer>> {
  return brokerRequest<CommandAnswer>(queuePath, { op: 'run', ...request }, options);
}

export type {
  AnswerCode,
  BrokerAnswer,
  BrokerRequest,
  CommandAnswer,
  EnvelopeErrorCode,
  HelloRequest,
  HelloResult,
  Label,
  ListRequest,
  ListResult,
  ManifestRow,
  RunRequest,
} from './protocol';
export {
  ANSWER_CODES,
  BROKER_PROTOCOL,
  ENVELOPE_ERROR_CODES,
  EXIT,
  MAX_ARGS_BYTES,
  MAX_LINE_BYTES,
} from './protocol';
