// Reading a request or an answer off the wire, once, at the edge: the broker reads each request line
// with parseRequest, a client each command answer with parseAnswer. A failure is data naming the
// field that was wrong; nothing here throws.
import { z } from 'zod';
import { answerPayload, receivedEnvelope } from './answer';
import { ANSWER_KINDS, type AnswerKind } from './codes';
import type { AnswerPayload, BrokerRequest, EnvelopeError, ReceivedAnswer } from './types';
import { BROKER_PROTOCOL, protocolMismatch } from './version';
import { brokerRequest, requestEnvelope } from './wire';

/** One thing wrong with a value read off the wire. */
export interface WireIssue {
  /** The field, as a JSON Pointer (`/args`, `/progress/elapsedMs`); `""` for the value itself. */
  readonly path: string;
  /** What the field must be, and what it held (`must be an object (found an array)`). */
  readonly message: string;
}

/** A request line read: the request, or the envelope error to answer it with and why. */
export type ParseRequestResult =
  | { ok: true; request: BrokerRequest }
  | {
      ok: false;
      /** The id to answer with: the line's `id` when it is a string, else `""`. */
      id: string;
      /** `bad_request`, or `unsupported_protocol` for a request naming another version. */
      error: EnvelopeError & { code: 'bad_request' | 'unsupported_protocol' };
      /** Each field that was wrong (empty when the line is not JSON or names another version). */
      issues: readonly WireIssue[];
    };

/** A command answer read: the answer, or why it cannot be read (then nobody can say what happened). */
export type ParseAnswerResult =
  | { ok: true; answer: ReceivedAnswer }
  | { ok: false; error: string; issues: readonly WireIssue[] };

// How many issues a message names; the rest are in `issues`.
const ISSUES_NAMED = 5;

// What is read of a request before it is judged: the id to answer with, the version and op it names.
const requestHead = z
  .object({
    id: z.string().catch(''),
    protocol: z.string().optional().catch(undefined),
    op: z.unknown().optional(),
  })
  .catch({ id: '', protocol: undefined, op: undefined });

/**
 * The id and op of a request line, read without judging the rest (`""` and `undefined` where it has
 * none): for a line answered before it is handled, or handled before the lines ahead of it.
 */
export function peekRequest(text: string): { id: string; op: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { id: '', op: undefined };
  }
  const { id, op } = requestHead.parse(value);
  return { id, op };
}

/**
 * Reads one request line. A string is the line's text (JSON); any other value is a line already
 * parsed. A request naming another protocol version fails `unsupported_protocol`, anything else that
 * is not a request of {@link BROKER_PROTOCOL} fails `bad_request`, its message naming each wrong
 * field (`/args must be an object (found an array)`). Fields the protocol does not define are
 * dropped from `request`, so an `actor` or `run` a client sends never reaches the host.
 */
export function parseRequest(line: unknown): ParseRequestResult {
  let value = line;
  if (typeof line === 'string') {
    try {
      value = JSON.parse(line);
    } catch {
      return badRequest('', 'the request line is not JSON', []);
    }
  }
  const head = requestHead.parse(value);
  // A request naming another version is refused by name; one naming none is a bad request.
  const mismatch = head.protocol === undefined ? undefined : protocolMismatch(head.protocol, 'the request');
  if (mismatch !== undefined)
    return { ok: false, id: head.id, error: { code: 'unsupported_protocol', message: mismatch }, issues: [] };
  const parsed = brokerRequest.safeParse(value, { reportInput: true });
  if (parsed.success) return { ok: true, request: parsed.data };
  // A request whose op is wrong is judged on that alone by the union; its envelope is judged too,
  // so one answer names every field to fix.
  const envelope = requestEnvelope.safeParse(value, { reportInput: true });
  const issues = wireIssues([...(envelope.success ? [] : envelope.error.issues), ...parsed.error.issues]);
  return badRequest(
    head.id,
    `the request does not match ${BROKER_PROTOCOL}: ${name(issues, 'the request')}`,
    issues,
  );
}

/**
 * Reads one command answer (the `result` of a `run`, or the stdout of `loom command run`), as a
 * client must read it: another host's code is kept, what an answer may leave out is filled in
 * conservatively, and a kind this side does not know (or none) is read as `result`, its body the JSON
 * it is (see {@link ReceivedAnswer}); a body of a known kind must be that kind's body. A value that is
 * not such an answer fails, its message naming each wrong field (`/mayHaveLanded must be a boolean
 * (found "yes")`, `/body/exitCode must be a number (found "3")`).
 */
export function parseAnswer(value: unknown): ParseAnswerResult {
  const envelope = receivedEnvelope.safeParse(value, { reportInput: true });
  if (!envelope.success) return notAnAnswer(envelope.error.issues);
  const { kind, body, reason, ...rest } = envelope.data;
  const payload = answerPayload.safeParse(
    { kind: isAnswerKind(kind) ? kind : 'result', body },
    { reportInput: true },
  );
  if (!payload.success) return notAnAnswer(payload.error.issues);
  const answer: ReceivedAnswer = {
    ...rest,
    ...(reason === undefined ? {} : { reason }),
    ...asSent(payload.data, body),
  };
  return { ok: true, answer };
}

/**
 * The body as it was sent, once its kind's schema has read it: the same value, so a field this side
 * does not know stays, in the sender's order, and nothing is copied. Sound because a body's schema
 * only checks (no default, no transform): a value it admits has every field its type names.
 */
function asSent<P extends AnswerPayload>(read: P, sent: unknown): P {
  return { ...read, body: sent } as P;
}

function isAnswerKind(kind: unknown): kind is AnswerKind {
  return (ANSWER_KINDS as readonly unknown[]).includes(kind);
}

function notAnAnswer(zodIssues: readonly z.core.$ZodIssue[]): ParseAnswerResult {
  const issues = wireIssues(zodIssues);
  return {
    ok: false,
    error: `the answer is not a ${BROKER_PROTOCOL} command answer: ${name(issues, 'the answer')}`,
    issues,
  };
}

function badRequest(id: string, message: string, issues: readonly WireIssue[]): ParseRequestResult {
  return { ok: false, id, error: { code: 'bad_request', message }, issues };
}

/** The first issues as one clause each, `subject` standing for the value itself. */
function name(issues: readonly WireIssue[], subject: string): string {
  return issues
    .slice(0, ISSUES_NAMED)
    .map((i) => `${i.path === '' ? subject : i.path} ${i.message}`)
    .join('; ');
}

/** zod's issues as wire issues, each field and message once. */
function wireIssues(issues: readonly z.core.$ZodIssue[]): WireIssue[] {
  const seen = new Set<string>();
  const out: WireIssue[] = [];
  for (const issue of issues) {
    const wire = { path: pointer(issue.path), message: describe(issue) };
    const key = `${wire.path}\u0000${wire.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(wire);
  }
  return out;
}

/** A path as a JSON Pointer (RFC 6901). */
function pointer(path: readonly PropertyKey[]): string {
  return path.map((key) => `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** What one issue asks for, and what the field held. */
function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.expected === 'nonoptional') return 'is required';
  const rule = ruleOf(issue);
  const held = heldValue(issue);
  return held === undefined ? `is missing: it ${rule}` : `${rule} (found ${show(held)})`;
}

function ruleOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${TYPE_NOUNS[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return `must be ${oneOf(issue.values)}`;
    case 'invalid_union':
      return 'options' in issue && issue.options !== undefined
        ? `must be ${oneOf(issue.options)}`
        : 'matches none of its forms';
    default:
      // The checks of wire.ts say what they need in their own words ("must hold 1 to 128 characters").
      return issue.message;
  }
}

/** The value the issue's field held (`undefined`: absent). A union told apart by one field names that field's. */
function heldValue(issue: z.core.$ZodIssue): unknown {
  const { input } = issue;
  if (issue.code !== 'invalid_union' || issue.discriminator === undefined) return input;
  return input !== null && typeof input === 'object'
    ? (input as Record<string, unknown>)[issue.discriminator]
    : undefined;
}

const TYPE_NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

// A string longer than this is named by its length, not echoed back.
const SHOWN_CHARS = 40;

/** A value as a message names it. */
function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value.length <= SHOWN_CHARS ? JSON.stringify(value) : `a string of ${value.length} characters`;
    case 'number':
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((v) => JSON.stringify(v));
  return shown.length === 1 ? (shown[0] as string) : `one of ${shown.join(', ')}`;
}
