// The wire shapes of loom-broker/2 (docs/protocol.md), each defined once as a zod schema: the types
// are inferred from these, the JSON Schema is generated from these (schema.ts), and both ends parse
// with these (parse.ts). The schemas stay inside the package; its surface is the types, the JSON
// Schema and the parsers.
import { z } from 'zod';
import { commandAnswer } from './answer';
import { ENVELOPE_ERROR_CODES } from './codes';
import { chars, jsonObject, label, whole } from './fields';
import { BROKER_PROTOCOL } from './version';

const protocol = z.literal(BROKER_PROTOCOL);
const requestId = chars(1, 128);
const jobId = chars(1, 256);

/** The fields every request line carries. */
export const requestEnvelope = z.object({ protocol, id: requestId });

/** One command as `list` and `loom command list --json` show it (docs/protocol.md, "Manifest rows"). */
export const manifestRow = z.object({
  id: z.string(),
  title: z.string(),
  help: z.string(),
  /** The arguments' JSON Schema (usually an object schema); may carry `x-*` keywords. */
  inputs: z.unknown(),
  /** Names of the fields the answer body declares. */
  outputs: z.array(z.string()).exactOptional(),
  /** Absent: unknown, treated as a write. */
  effect: z.enum(['read', 'write']).exactOptional(),
  /** The target as the host writes it: `global` (default) or `loom`. */
  scope: z.string().exactOptional(),
  /** Broker stamp: true only where this scope grants read-only execution. */
  readOnlyGranted: z.boolean().exactOptional(),
  ifc: label.exactOptional(),
  /**
   * The timeout the host enforces on this command, in ms (a pack's `timeout`): a client waits for a
   * call's answer at least this long plus a margin. Absent: the host states none.
   */
  timeoutMs: whole(1).exactOptional(),
  /** The pack lets telemetry export this command's argument values (`telemetry.include_args`). */
  telemetryArgs: z.boolean().exactOptional(),
  // Hiding fields: presentation only (the broker's scope decides what runs); a harness hides a row
  // that carries them from agents.
  origin: z.string().exactOptional(),
  developer: z.boolean().exactOptional(),
  actors: z.array(z.string()).exactOptional(),
  origins_refused: z.array(z.string()).exactOptional(),
  origins_required: z.array(z.string()).exactOptional(),
  grant: z.unknown().exactOptional(),
});

/** `hello`: who this broker is. */
export const helloRequest = requestEnvelope.extend({ op: z.literal('hello') });

/** What a `list` asks for, without its envelope. */
export const listParams = z.object({
  jobId: jobId.exactOptional(),
  /**
   * The `etag` of the listing the client holds (`""` when it holds none). A broker answers with the
   * listing's `etag`, and with `unchanged: true` and no rows when it equals this one.
   */
  ifNoneMatch: chars(0, 128).exactOptional(),
});

/** `list`: the rows this broker's scope admits. */
export const listRequest = requestEnvelope.extend({ op: z.literal('list'), ...listParams.shape });

/** What a `run` asks for, without its envelope. */
export const runParams = z.object({
  command: chars(1, 256),
  args: jsonObject,
  loomId: chars(1, 128).exactOptional(),
  expectedVersion: whole(1).exactOptional(),
  readOnly: z.boolean().exactOptional(),
  jobId: jobId.exactOptional(),
  /**
   * The client's session the call belongs to (one MCP session of `harness serve`): an opaque id the
   * client chose. An approval a call asks for is bound to it: only a call of the same session
   * consumes it, and another session's identical call asks anew. Absent: the agent's calls without
   * one share their approvals.
   */
  session: chars(1, 128).exactOptional(),
  /**
   * Asks for progress lines while the run is in flight: one every `PROGRESS_INTERVAL_MS` after the
   * first `PROGRESS_INTERVAL_MS`. A client that does not ask never receives one.
   */
  progress: z.boolean().exactOptional(),
});

/** `run`: run one command as the broker's agent. */
export const runRequest = requestEnvelope.extend({ op: z.literal('run'), ...runParams.shape });

/** What a `cancel` asks for, without its envelope. */
export const cancelParams = z.object({
  /** The `id` of a `run` request sent earlier on the same connection. */
  target: requestId,
});

/**
 * `cancel`: stop a run in flight on this connection. The broker kills a running pack command's
 * process group; the run still gets its own answer (`failed`, reason `cancelled`), and its audit
 * row says `cancelled`. A built-in runs to its end.
 */
export const cancelRequest = requestEnvelope.extend({ op: z.literal('cancel'), ...cancelParams.shape });

/** Any request a broker accepts, told apart by `op`. */
export const brokerRequest = z.discriminatedUnion('op', [
  helloRequest,
  listRequest,
  runRequest,
  cancelRequest,
]);

/** The fields every answer and progress line carries. */
const answerEnvelope = { protocol, id: z.string() };

/** The result of a `hello` request. */
export const helloResult = z.object({ protocol, run: z.string(), agent: z.string() });

/** The result of a `list` request. */
export const listResult = z.object({
  commands: z.array(manifestRow),
  /** The listing's version, present when the request sent `ifNoneMatch`. */
  etag: z.string().exactOptional(),
  /** The listing equals the one the request's `ifNoneMatch` names; `commands` is then empty. */
  unchanged: z.literal(true).exactOptional(),
  /**
   * How many tools granted to the agent an MCP server lists but the broker holds back until a person
   * accepts their definitions (docs/servers.md, "Pinned definitions"); absent when none.
   */
  quarantined: z.number().int().positive().exactOptional(),
});

/** The result of a `cancel` request. */
export const cancelResult = z.object({
  /**
   * `true` when a run of that id was in flight on this connection and has been told to stop (its
   * own answer follows); `false` when none was (already answered, never sent, or not a run).
   */
  cancelled: z.boolean(),
});

/** An envelope-level error: the request itself could not be handled. */
export const envelopeError = z.object({ code: z.enum(ENVELOPE_ERROR_CODES), message: z.string() });

/** One answer line of the broker. */
export const brokerAnswer = z.discriminatedUnion('ok', [
  z.object({
    ...answerEnvelope,
    ok: z.literal(true),
    result: z.union([helloResult, listResult, commandAnswer, cancelResult]),
  }),
  z.object({ ...answerEnvelope, ok: z.literal(false), error: envelopeError }),
]);

/** The approval a run held for a person's decision waits for (a pack's `approval_wait`). */
export const approvalWaiting = z.object({
  /** The approval's id, as `harness approvals approve <id>` takes it. */
  id: z.string(),
  /** The command line that approves it, as a shell where the broker runs reads it. */
  approve: z.string(),
  /** When the wait ends without a decision (ISO 8601): the run then answers `approval_required`. */
  waitsUntil: z.string(),
});

/** How far a run in flight has come, as a progress line carries it. */
export const runProgress = z.object({
  /** Ms since the broker began handling the run. */
  elapsedMs: whole(0),
  /** Bytes of stdout + stderr the command has written so far (0 for a built-in, or before it starts). */
  outputBytes: whole(0),
  /**
   * Present while the run waits for a person to decide its approval (sent at once when the wait
   * begins, then with every progress line until the decision); absent otherwise.
   */
  approval: approvalWaiting.exactOptional(),
});

/**
 * A line the broker sends about a `run` that asked for `progress` and has not been answered yet:
 * the request's `id` and no `ok`, so it is never read as the answer.
 */
export const progressLine = z.object({ ...answerEnvelope, progress: runProgress });
