// The answer to a `run` (docs/protocol.md, "Answers"), defined once: a union told apart by `kind`,
// each kind with the one body it carries. The host builds these, the JSON Schema is generated from
// them, and a client reads them with parseAnswer (parse.ts), which checks the body against its kind.
//
// A new kind of answer is one more variant here: its body schema, its entry in ANSWER_KINDS
// (codes.ts) and in `bodies` below. An upstream MCP tool's result is one: `tool_result`, its text
// content joined, its structured content kept, other content kinds summarised, and how it ended.
import { z } from 'zod';
import { ANSWER_CODES, HELD_REASONS, SPAWN_STATUSES } from './codes';
import { jsonValue, label } from './fields';

// Bodies -------------------------------------------------------------------------------------------
// Each body states the fields a host must send; parseAnswer checks a body against its kind and keeps
// it as it was sent (fields this side does not know included, in the sender's order).

/** A whole number, as JSON Schema's `integer` reads one. */
const int = () => z.number().int();

/** A pack command's spawn that ended well: its parsed output. */
const ranOk = z.object({
  status: z.literal('ok'),
  /** What it printed, parsed as its command says (`text`: a string, `lines`: a list, `json`: any). */
  output: jsonValue,
  stderr: z.string(),
  exitCode: int().nullable(),
  durationMs: z.number(),
});

/** A pack command's spawn that did not end well: how it ended, and what it printed, raw. */
const ranEnded = z.object({
  status: z.enum(SPAWN_STATUSES).exclude(['ok']),
  /** One line for people and the agent: what happened, with stderr's first line on failure. */
  message: z.string(),
  exitCode: int().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
  outputExceeded: z.boolean(),
  durationMs: z.number(),
  /** Why `parse: json` output was not JSON (`parse_failed`). */
  parseError: z.string().exactOptional(),
});

/** `ran`: a pack command's process ran; its status says how it ended. */
const ranBody = z.discriminatedUnion('status', [ranOk, ranEnded]);

/** The approval a call waits for, as an answer names it (`approval.id` is what `approvals approve` takes). */
export const answerApproval = z.object({
  id: z.string(),
  /** When the request expires (ISO 8601); `null` when the host could not read it. */
  expires_at: z.string().nullable(),
  /** The hash of the plan the approval covers; `null` for a call whose plan could not be made. */
  plan_hash: z.string().nullable(),
});

/** `held`: the host's words on the approval, and the approval itself where the gate asked for one. */
const heldBody = z.object({ message: z.string(), approval: answerApproval.exactOptional() });

/** One argument that does not fit the command's schema. */
const argumentIssue = z.object({
  /** A JSON Pointer into the arguments (`/components/0/ref`). */
  path: z.string(),
  message: z.string(),
});

/** `refused`: why nothing ran; after `bad-args`, each argument that does not fit. */
const refusedBody = z.object({ message: z.string(), errors: z.array(argumentIssue).exactOptional() });

/** `cancelled`: nothing started; the approval it waited for, if it waited, stays pending. */
const cancelledBody = z.object({
  status: z.literal('cancelled'),
  message: z.string(),
  approval: answerApproval.exactOptional(),
});

/** `failed`: what failed around the call (it may have landed: see the answer's `mayHaveLanded`). */
const failedBody = z.object({ message: z.string() });

/** A compose receipt, as `loom.compose` and `loom.authoring-context` return it. */
const receipt = z.object({
  loom_id: z.string(),
  request_id: z.string(),
  version: int(),
  created: z.boolean(),
  component_ids: z.array(z.string()),
  operation_ids: z.array(z.string()),
  displaced: z.array(z.string()),
  committed_at: z.string().exactOptional(),
});

/**
 * One loom as `loom.inspect` shows it: metadata only, never a component's reference. What a host
 * must say is the loom, its version and its components; the rest is what the reference host adds.
 */
const loomView = z.object({
  loom_id: z.string(),
  version: int(),
  created_at: z.string().exactOptional(),
  updated_at: z.string().exactOptional(),
  components: z.array(
    z.object({
      id: z.string().nullable().exactOptional(),
      kind: z.string().exactOptional(),
      title: z.string().nullable().exactOptional(),
      stage: z.string().nullable().exactOptional(),
      position: z.number().exactOptional(),
      added_version: int().exactOptional(),
    }),
  ),
  layout: z
    .object({
      stages: z.record(z.string(), z.array(z.string())).exactOptional(),
      shelf: z.array(z.string()).exactOptional(),
      focus: z.string().nullable().exactOptional(),
    })
    .exactOptional(),
});

/** `composed`: a committed compose's receipt, or the original receipt of an identical retry. */
const composedBody = z.object({
  receipt,
  replayed: z.boolean(),
  current_version: int(),
  displaced: z.array(z.string()),
});

/** `context`: this agent's compose receipts, newest first, and the loom the call is bound to. */
const contextBody = z.object({
  receipts: z.array(receipt),
  target: loomView.nullable(),
  /** The bound loom (from `--loom`) that no longer exists; `target` is then `null`. */
  target_unavailable: z.object({ loom_id: z.string(), reason: z.string() }).exactOptional(),
  /**
   * A supporting host's run-scoped receipts of deployed patterns (`loom-deployed-pattern-v1`), each
   * read on its own by the harness (docs/loom-authoring.md).
   */
  deployed_patterns: z.object({ receipts: z.array(jsonValue) }).exactOptional(),
});

/** `version_conflict`: the loom is at another version than the call expected. */
const versionConflictBody = z.object({
  loom_id: z.string(),
  expected_version: int(),
  current_version: int(),
  guidance: z.string(),
});

/** `request_conflict`: the request id already names another composition. */
const requestConflictBody = z.object({ request_id: z.string(), guidance: z.string() });

/** `not_found`: no loom has the id. */
const notFoundBody = z.object({ loom_id: z.string(), message: z.string() });

/** How an upstream MCP tool's call ended (docs/servers.md, "Answers"). */
export const TOOL_STATUSES = [
  'ok',
  'tool_error',
  'timeout',
  'cancelled',
  'died',
  'failed',
  'too_large',
] as const;

/**
 * `tool_result`: an upstream MCP server's tool result. `text` is its text content joined by newlines,
 * with other content kinds summarised by kind and size (`[image image/png, 1234 bytes]`);
 * `structured` its `structuredContent`; a status other than `ok` says how it ended (`tool_error`:
 * the server answered `isError: true`), and `message` says so in words.
 */
const toolResultBody = z.object({
  server: z.string(),
  tool: z.string(),
  status: z.enum(TOOL_STATUSES),
  text: z.string(),
  structured: jsonValue.exactOptional(),
  message: z.string().exactOptional(),
  outputExceeded: z.boolean(),
  durationMs: int(),
});

/** The body of each kind, by kind: the one place that pairs them. */
export const answerBodies = {
  ran: ranBody,
  held: heldBody,
  refused: refusedBody,
  cancelled: cancelledBody,
  failed: failedBody,
  composed: composedBody,
  inspected: loomView,
  context: contextBody,
  version_conflict: versionConflictBody,
  request_conflict: requestConflictBody,
  not_found: notFoundBody,
  tool_result: toolResultBody,
  /** A command's own JSON (another host's command that is neither a pack command nor a built-in). */
  result: jsonValue,
} as const;

/** A kind with its body: what a client reads of an answer beside its envelope. */
const payload = <K extends keyof typeof answerBodies>(kind: K) =>
  z.object({ kind: z.literal(kind), body: answerBodies[kind] });

/** Every kind with its body, told apart by `kind`. */
export const answerPayload = z.discriminatedUnion('kind', [
  payload('ran'),
  payload('held'),
  payload('refused'),
  payload('cancelled'),
  payload('failed'),
  payload('composed'),
  payload('inspected'),
  payload('context'),
  payload('version_conflict'),
  payload('request_conflict'),
  payload('not_found'),
  payload('tool_result'),
  payload('result'),
]);

// Answers ------------------------------------------------------------------------------------------

/** The fields of every answer besides its outcome and its body. */
const envelope = {
  /** The command id that was asked for. */
  id: z.string(),
  /** False only when the host is sure nothing took effect. */
  mayHaveLanded: z.boolean(),
  /** Ids of operations committed by this call (empty for pack commands). */
  completed: z.array(z.string()),
  /** The answer's own label, where the host declares one. */
  ifc: label.exactOptional(),
};

/** An answer that carries no finer reason (every answer may be read for one: none here). */
const noReason = z.never().exactOptional();

/** A failure's code: any code of the protocol but `ok`. */
const notOk = z.enum(ANSWER_CODES).exclude(['ok']);

/** The one JSON answer of `loom command run` and of a broker `run` request: one variant per kind. */
export const commandAnswer = z.discriminatedUnion('kind', [
  z.object({
    ...envelope,
    ok: z.boolean(),
    code: z.enum(['ok', 'failed']),
    /** The spawn's status when it did not end well. */
    reason: z.enum(SPAWN_STATUSES).exclude(['ok']).exactOptional(),
    kind: z.literal('ran'),
    body: ranBody,
  }),
  z.object({
    ...envelope,
    ok: z.literal(false),
    code: z.literal('refused'),
    reason: z.enum(HELD_REASONS),
    kind: z.literal('held'),
    body: heldBody,
  }),
  z.object({
    ...envelope,
    ok: z.literal(false),
    code: notOk,
    /** A finer machine code (`not_in_scope`, `readonly_tier`, `render_refused`, …); none after `bad-args`. */
    reason: z.string().exactOptional(),
    kind: z.literal('refused'),
    body: refusedBody,
  }),
  z.object({
    ...envelope,
    ok: z.literal(false),
    code: z.literal('failed'),
    reason: z.literal('cancelled'),
    kind: z.literal('cancelled'),
    body: cancelledBody,
  }),
  z.object({
    ...envelope,
    ok: z.literal(false),
    code: z.enum(['failed', 'internal']),
    /** `answer_too_large`: the command ran and its answer was over the answer limit. */
    reason: z.string().exactOptional(),
    kind: z.literal('failed'),
    body: failedBody,
  }),
  z.object({
    ...envelope,
    ok: z.literal(true),
    code: z.literal('ok'),
    reason: noReason,
    kind: z.literal('composed'),
    body: composedBody,
  }),
  z.object({
    ...envelope,
    ok: z.literal(true),
    code: z.literal('ok'),
    reason: noReason,
    kind: z.literal('inspected'),
    body: loomView,
  }),
  z.object({
    ...envelope,
    ok: z.literal(true),
    code: z.literal('ok'),
    reason: noReason,
    kind: z.literal('context'),
    body: contextBody,
  }),
  z.object({
    ...envelope,
    ok: z.literal(false),
    code: z.literal('version_conflict'),
    reason: noReason,
    kind: z.literal('version_conflict'),
    body: versionConflictBody,
  }),
  z.object({
    ...envelope,
    ok: z.literal(false),
    code: z.literal('request_conflict'),
    reason: noReason,
    kind: z.literal('request_conflict'),
    body: requestConflictBody,
  }),
  z.object({
    ...envelope,
    ok: z.literal(false),
    code: z.literal('not_found'),
    reason: noReason,
    kind: z.literal('not_found'),
    body: notFoundBody,
  }),
  z.object({
    ...envelope,
    ok: z.boolean(),
    code: z.enum(['ok', 'failed']),
    /** The status when the call did not end well. */
    reason: z.enum(TOOL_STATUSES).exclude(['ok']).exactOptional(),
    kind: z.literal('tool_result'),
    body: toolResultBody,
  }),
  z.object({
    ...envelope,
    ok: z.boolean(),
    code: z.enum(ANSWER_CODES),
    reason: z.string().exactOptional(),
    kind: z.literal('result'),
    body: jsonValue,
  }),
]);

/**
 * A {@link commandAnswer}'s envelope as a client reads it. Under the compatibility rule every peer
 * ignores what it does not know, so another host's code is kept as sent and a `reason` that is not
 * a string is dropped; an answer that does not say whether it may have landed is read as having
 * landed (the conservative reading), one without `completed` as having committed nothing, one
 * without a body as `body: null`; `ifc` stays raw (its reader is `@harness/ifc`). The kind and body
 * are read by parseAnswer: a body is checked against its kind's schema and kept as it was sent.
 */
export const receivedEnvelope = z.object({
  ok: z.boolean(),
  id: z.string(),
  code: z.string(),
  reason: z.string().optional().catch(undefined),
  mayHaveLanded: z.boolean().default(true),
  completed: z.array(z.string()).default([]),
  ifc: z.unknown().exactOptional(),
  kind: z.unknown().optional(),
  body: z.unknown().default(null),
});
