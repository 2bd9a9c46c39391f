// `loom command list` and `loom command run`: the per-call path. Over a broker this module loads only
// the light client (node:net); direct transport loads the host lazily.
import {
  answerTooLarge,
  type CommandAnswer,
  EXIT,
  exceedsBytes,
  isLoomId,
  MAX_ANSWER_LINE_BYTES,
  MAX_ARGS_BYTES,
} from '@harness/protocol';
import { type BrokerFailure, brokerList, brokerRun } from '@harness/protocol/client';
import { parseArgs, str } from './args';
import { LOOM_ERROR_EXIT, LoomError, LoomErrorCode } from './errors';
import { HELP } from './help';

type Out = (text: string) => void;

const LIST_FLAGS = { json: false, transport: true } as const;
const RUN_FLAGS = {
  json: false,
  'args-json': true,
  loom: true,
  expect: true,
  'read-only': false,
  transport: true,
} as const;

/** Prints one protocol error line and returns its exit code. */
function protocolError(out: Out, code: string, message: string, exit: number): number {
  out(`${JSON.stringify({ error: { code, message } })}\n`);
  return exit;
}

/** A request the client did not send (no broker, another protocol version, busy): exit 3. */
function notSent(out: Out, f: BrokerFailure): number | undefined {
  if (f.kind === 'unreachable' || f.kind === 'busy')
    return protocolError(out, f.kind, f.message, EXIT.unreachable);
  // The CLI gives the client no signal, so this is never the case; were it, nothing was sent.
  if (f.kind === 'cancelled') return protocolError(out, f.kind, f.message, EXIT.unreachable);
  if (f.kind === 'incompatible')
    return protocolError(out, 'unsupported_protocol', f.message, EXIT.unreachable);
  return undefined;
}

async function readStdin(limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit)
      throw new LoomError(LoomErrorCode.usage, `the arguments on stdin exceed ${MAX_ARGS_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function transportOf(value: string | undefined): 'broker' | 'direct' {
  if (value === undefined || value === 'broker') return 'broker';
  if (value === 'direct') return 'direct';
  throw new LoomError(
    LoomErrorCode.usage,
    `--transport must be broker or direct, found ${JSON.stringify(value)}`,
  );
}

function queueFromEnv(): string {
  const queue = process.env.LOOM_PAGE_RPC_QUEUE;
  if (!queue) {
    throw new LoomError(
      LoomErrorCode.unreachable,
      'LOOM_PAGE_RPC_QUEUE is not set: no broker to reach (direct access is never a fallback)',
    );
  }
  return queue;
}

function directEnv(): { instanceDir: string; runId: string; actor: string } {
  const instanceDir = process.env.LOOM_INSTANCE_DIR;
  const runId = process.env.LOOM_RUN_ID;
  const actor = process.env.LOOM_ACTOR;
  if (!instanceDir || runId === undefined || actor === undefined) {
    throw new LoomError(
      LoomErrorCode.usage,
      '--transport direct needs LOOM_INSTANCE_DIR, LOOM_RUN_ID and LOOM_ACTOR in the environment',
    );
  }
  return { instanceDir, runId, actor };
}

const jobId = (): { jobId?: string } => {
  const j = process.env.LOOM_COMMAND_JOB_ID;
  return j ? { jobId: j } : {};
};

/** `loom command …`; returns the exit code. */
export async function commandMain(argv: readonly string[], out: Out): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    if (sub === 'list') return await list(rest, out);
    if (sub === 'run') return await run(rest, out);
    if (sub === undefined || sub === '--help' || sub === '-h') {
      out(HELP.command);
      return EXIT.ok;
    }
    throw new LoomError(LoomErrorCode.usage, `unknown subcommand "command ${sub}"; expected list or run`);
  } catch (error) {
    if (error instanceof LoomError)
      return protocolError(out, error.code, error.message, LOOM_ERROR_EXIT[error.code]);
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code === 'direct_invalid')
      return protocolError(out, 'usage', (error as Error).message, EXIT.usage);
    if (typeof code === 'string' && (code === 'instance_invalid' || code.startsWith('store'))) {
      return protocolError(out, code, (error as Error).message, EXIT.internal);
    }
    return protocolError(out, 'internal', (error as Error).message, EXIT.internal);
  }
}

async function list(argv: readonly string[], out: Out): Promise<number> {
  const p = parseArgs(argv, LIST_FLAGS);
  if (p.flags.help) {
    out(HELP.list);
    return EXIT.ok;
  }
  if (p.positional.length > 0)
    throw new LoomError(
      LoomErrorCode.usage,
      `command list takes no arguments, found ${p.positional.join(' ')}`,
    );
  if (transportOf(str(p, 'transport')) === 'direct') {
    const host = await import('@harness/host');
    const result = await host.listDirect(directEnv());
    out(`${JSON.stringify(result)}\n`);
    return EXIT.ok;
  }
  const r = await brokerList(queueFromEnv(), jobId());
  if (r.ok) {
    out(`${JSON.stringify({ commands: r.value.commands })}\n`);
    return EXIT.ok;
  }
  const f = r.failure;
  const unsent = notSent(out, f);
  if (unsent !== undefined) return unsent;
  if (f.kind === 'envelope') return protocolError(out, f.code, f.message, EXIT.answerNotOk);
  return protocolError(out, 'lost', f.message, EXIT.internal);
}

async function run(argv: readonly string[], out: Out): Promise<number> {
  const p = parseArgs(argv, RUN_FLAGS);
  if (p.flags.help) {
    out(HELP.run);
    return EXIT.ok;
  }
  const [id, ...extra] = p.positional;
  if (id === undefined)
    throw new LoomError(
      LoomErrorCode.usage,
      'command run needs a command id: loom command run <id> --args-json - --json',
    );
  if (extra.length > 0)
    throw new LoomError(
      LoomErrorCode.usage,
      `command run takes one command id, found also ${extra.join(' ')}`,
    );
  const transport = transportOf(str(p, 'transport'));
  const expectText = str(p, 'expect');
  let expectedVersion: number | undefined;
  if (expectText !== undefined) {
    if (!/^[1-9][0-9]{0,14}$/.test(expectText))
      throw new LoomError(
        LoomErrorCode.usage,
        `--expect must be a positive integer version, found ${JSON.stringify(expectText)}`,
      );
    expectedVersion = Number(expectText);
  }
  const loomId = str(p, 'loom');
  if (loomId !== undefined && !isLoomId(loomId)) {
    throw new LoomError(
      LoomErrorCode.usage,
      `--loom must be a loom id (letters, digits, _ . : -, at most 128), found ${JSON.stringify(loomId)}`,
    );
  }
  const source = str(p, 'args-json');
  let text = '{}';
  if (source === '-') text = await readStdin(MAX_ARGS_BYTES * 2);
  else if (source !== undefined) text = source;
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch {
    throw new LoomError(
      LoomErrorCode.usage,
      'the arguments are not valid JSON (expected one JSON object on stdin)',
    );
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new LoomError(LoomErrorCode.usage, 'the arguments must be one JSON object');
  }
  if (Buffer.byteLength(JSON.stringify(args)) > MAX_ARGS_BYTES) {
    throw new LoomError(LoomErrorCode.usage, `the arguments exceed ${MAX_ARGS_BYTES} bytes of JSON`);
  }
  const request = {
    command: id,
    args: args as Record<string, unknown>,
    ...(loomId === undefined ? {} : { loomId }),
    ...(expectedVersion === undefined ? {} : { expectedVersion }),
    ...(p.flags['read-only'] === true ? { readOnly: true } : {}),
    ...jobId(),
  };
  let answer: CommandAnswer;
  if (transport === 'direct') {
    const host = await import('@harness/host');
    answer = await host.runDirect({ ...directEnv(), request });
  } else {
    const r = await brokerRun(queueFromEnv(), request);
    if (!r.ok) {
      const f = r.failure;
      const unsent = notSent(out, f);
      if (unsent !== undefined) return unsent;
      if (f.kind === 'envelope')
        return protocolError(
          out,
          f.code,
          f.message,
          f.code === 'request_too_large' || f.code === 'bad_request' ? EXIT.usage : EXIT.internal,
        );
      return protocolError(out, 'lost', `${f.message}; the command may have run`, EXIT.internal);
    }
    answer = r.value;
  }
  // The direct transport's answer is bounded like the broker's, so the harness can always read it.
  let line = JSON.stringify(answer);
  if (exceedsBytes(line, MAX_ANSWER_LINE_BYTES)) {
    answer = answerTooLarge(answer);
    line = JSON.stringify(answer);
  }
  out(`${line}\n`);
  return answer.ok ? EXIT.ok : EXIT.answerNotOk;
}
