// The seed's host client: the host CLI run once per call, over a cleared environment.
import { run as execRun } from '@harness/exec';
import { FALLBACK_PATH } from '@harness/exec/internal';
import { EXIT, MAX_ANSWER_LINE_BYTES } from '@harness/protocol';
import type { HostConfig } from '../config';
import { parseJson } from '../json';
import { readAnswer } from './answer';
import { callWaitMs, DEFAULT_HOST_TIMEOUT_MS } from './defaults';
import type { CallOptions, CallRequest, HostClient, ListOutcome, SendOutcome } from './types';

// `loom command run` prints one answer line, which the protocol bounds: read it whole.
const MAX_OUTPUT_BYTES = MAX_ANSWER_LINE_BYTES + 1;

/**
 * The whole environment of one host call: the search path, the routing variables of the
 * configured transport, and the job-id variable when the embedder supplied an id. Nothing else is
 * inherited — in particular not a job id already set in the harness's own environment.
 */
export function hostEnvironment(config: HostConfig, jobId: string | undefined): Record<string, string> {
  const env: Record<string, string> = { PATH: config.searchPath ?? process.env.PATH ?? FALLBACK_PATH };
  const t = config.transport;
  if (t.kind === 'broker') {
    env.LOOM_PAGE_RPC_QUEUE = t.socketPath;
  } else {
    env.LOOM_INSTANCE_DIR = t.instanceDir;
    env.LOOM_RUN_ID = t.runId;
    env.LOOM_ACTOR = t.actor;
  }
  if (config.jobIdEnvVar !== undefined && jobId !== undefined) env[config.jobIdEnvVar] = jobId;
  return env;
}

/** The argv of one host call. `--read-only` is appended here, outside the model's arguments. */
export function runArgv(config: HostConfig, req: CallRequest, readOnly = false): string[] {
  const argv = [config.cliPath, 'command', 'run'];
  // Direct routing goes before the id so queue discovery can never replace the pinned instance.
  if (config.transport.kind === 'direct') argv.push('--transport', 'direct');
  argv.push(req.command, '--args-json', '-', '--json');
  if (req.loomId !== undefined) argv.push('--loom', req.loomId);
  if (req.expectedVersion !== undefined) argv.push('--expect', String(req.expectedVersion));
  if (readOnly) argv.push('--read-only');
  return argv;
}

/** The argv of a listing read. */
export function listArgv(config: HostConfig): string[] {
  const argv = [config.cliPath, 'command', 'list'];
  if (config.transport.kind === 'direct') argv.push('--transport', 'direct');
  argv.push('--json');
  return argv;
}

/**
 * The seed's host client: each call runs the configured CLI through `@harness/exec` over a
 * cleared environment, the arguments on stdin. Works with any host that implements the CLI
 * protocol.
 */
export function createCliHostClient(config: HostConfig): HostClient {
  const timeoutMs = config.timeoutMs ?? DEFAULT_HOST_TIMEOUT_MS;
  return {
    kind: 'cli',
    async list(opts: CallOptions = {}): Promise<ListOutcome> {
      if (opts.signal?.aborted) return { ok: false, code: 'cancelled' };
      let r: Awaited<ReturnType<typeof execRun>>;
      try {
        r = await execRun({
          argv: listArgv(config),
          env: hostEnvironment(config, opts.jobId),
          timeoutMs,
          maxOutputBytes: MAX_OUTPUT_BYTES,
          onExceed: 'fail',
        });
      } catch {
        return { ok: false, code: 'command_failed' };
      }
      if (!r.ok) return { ok: false, code: 'command_failed' };
      const parsed = parseJson(r.stdout);
      if (!parsed) return { ok: false, code: 'malformed_payload' };
      return { ok: true, listing: parsed.value };
    },
    async run(req: CallRequest, opts: CallOptions = {}): Promise<SendOutcome> {
      if (opts.signal?.aborted) return { kind: 'not_sent', code: 'cancelled' };
      let r: Awaited<ReturnType<typeof execRun>>;
      try {
        // No signal: a started call settles even when the turn is cancelled (seed 001). Killing the
        // `loom` process would not stop the command either: the broker runs it for the connection.
        r = await execRun({
          argv: runArgv(config, req, opts.readOnly === true),
          env: hostEnvironment(config, opts.jobId),
          stdin: JSON.stringify(req.args),
          timeoutMs: callWaitMs(timeoutMs, opts.commandTimeoutMs),
          maxOutputBytes: MAX_OUTPUT_BYTES,
          onExceed: 'fail',
        });
      } catch {
        // The process never started, so nothing was sent.
        return { kind: 'not_sent', code: 'command_failed' };
      }
      if (r.outcome === 'exited' && r.exitCode === EXIT.usage)
        return { kind: 'not_sent', code: 'invalid_input' };
      if (r.outcome === 'exited' && r.exitCode === EXIT.unreachable)
        return { kind: 'not_sent', code: 'command_failed' };
      if (r.outcome !== 'exited' || (r.exitCode !== EXIT.ok && r.exitCode !== EXIT.answerNotOk))
        return { kind: 'lost' };
      const parsed = parseJson(r.stdout);
      return (parsed ? readAnswer(parsed.value) : undefined) ?? { kind: 'lost' };
    },
    async close(): Promise<void> {},
  };
}
