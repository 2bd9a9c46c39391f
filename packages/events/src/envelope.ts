import { EventsError, EventsErrorCode } from './errors';
import { type Extraction, extract, type Typed } from './extract';
import { EVENT_ID_PATTERN, isEventId, NAME_PATTERN } from './patterns';

/** The envelope format version this package writes and reads. */
export const ENVELOPE_VERSION = 1;

/** A webhook source name such as `webhook.gitea-pr` (the same shape as an event id). */
export const SOURCE_PATTERN = EVENT_ID_PATTERN;

/** `received_at`: RFC 3339 in UTC, e.g. `2026-09-22T05:10:00Z` (fractional seconds accepted on read). */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * The version-1 event envelope (SPEC-0014): the file a run receives in `HARNESS_EVENT_FILE`.
 *
 * `webhook.body` is the delivery as received, less a top-level `secret` field (old Gitea sends its
 * webhook secret in the body; the run must not see it). `typed` is a convenience copy for the agent:
 * a replay ignores it and extracts again from `webhook.body`.
 */
export interface EnvelopeV1 {
  version: 1;
  kind: string;
  source: string;
  event_id: string;
  received_at: string;
  webhook: { event: string; delivery: string; body: unknown };
  typed: Typed;
}

/** An envelope together with the extraction it was built from (or, on replay, re-extracted into). */
export interface LoadedEnvelope {
  envelope: EnvelopeV1;
  /** `typed` equals `envelope.typed`; `untrusted` holds the free text that only the fence may render. */
  extraction: Extraction;
}

/** What {@link buildEnvelope} needs. */
export interface EnvelopeInput {
  /** The webhook source's name, e.g. `webhook.gitea-pr`. */
  source: string;
  /** The source's scheme: `github`, `gitea` or `forgejo` pick an extractor table. */
  scheme: string;
  /** The event header (`X-GitHub-Event` and the like). */
  event: string;
  /** The delivery id header; it becomes `event_id` when it is a valid id, else one is generated. */
  delivery?: string | undefined;
  /** The parsed JSON body. */
  body: unknown;
  /** The source's `trusted_actors`. */
  trustedActors?: readonly string[] | undefined;
  /** When the delivery arrived. Default: now. */
  receivedAt?: Date | undefined;
  /** Default `webhook`. */
  kind?: string | undefined;
}

/** How replay reads an envelope: the scheme and trusted actors come from configuration, never the file. */
export interface ReplayOptions {
  scheme: string;
  trustedActors?: readonly string[] | undefined;
  /** When set, an envelope of another source is refused (`source_mismatch`). */
  source?: string | undefined;
}

/** Why an envelope could not be read. */
export type EnvelopeIssueCode =
  | 'unreadable'
  | 'invalid_json'
  | 'not_an_object'
  | 'unsupported_version'
  | 'invalid_field'
  | 'source_mismatch';

/** One problem found reading an envelope. `path` names the envelope field; no payload value is quoted. */
export interface EnvelopeIssue {
  code: EnvelopeIssueCode;
  path: string;
  message: string;
}

/** The outcome of reading an envelope for a replay. */
export type EnvelopeResult = { ok: true; value: LoadedEnvelope } | { ok: false; issues: EnvelopeIssue[] };

/**
 * An `event.id` for a delivery: the delivery id when it matches the seed's `event.id` pattern,
 * otherwise a fresh random UUID (the seed's "else daemon-generated").
 */
export function eventIdFor(delivery: unknown): string {
  return isEventId(delivery) ? delivery : globalThis.crypto.randomUUID();
}

/** Formats a time as RFC 3339 UTC with whole seconds: `2026-09-22T05:10:00Z`. */
export function formatTimestamp(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function storedBody(body: unknown): unknown {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(body ?? null));
  } catch (cause) {
    throw new EventsError(
      EventsErrorCode.invalid_envelope,
      'The webhook body is not JSON-serialisable (a cycle or a bigint?); expected the parsed JSON of the delivery. Pass the value JSON.parse returned.',
      { cause },
    );
  }
  if (typeof copy === 'object' && copy !== null && !Array.isArray(copy) && Object.hasOwn(copy, 'secret')) {
    delete (copy as Record<string, unknown>).secret;
  }
  return copy;
}

/**
 * Builds a version-1 envelope and runs the scheme's extractor once, storing its result as `typed`.
 *
 * Throws {@link EventsError} `invalid_envelope` when `source`, `kind` or `event` could never be read
 * back (a daemon bug, not a delivery problem): an envelope must always be replayable.
 */
export function buildEnvelope(input: EnvelopeInput): LoadedEnvelope {
  const kind = input.kind ?? 'webhook';
  if (typeof input.source !== 'string' || !SOURCE_PATTERN.test(input.source)) {
    throw new EventsError(
      EventsErrorCode.invalid_envelope,
      `Invalid envelope source: expected a name matching ${SOURCE_PATTERN.source} such as webhook.gitea-pr; rename the webhook source.`,
    );
  }
  if (!NAME_PATTERN.test(kind)) {
    throw new EventsError(
      EventsErrorCode.invalid_envelope,
      `Invalid envelope kind: expected ${NAME_PATTERN.source}, such as webhook.`,
    );
  }
  if (typeof input.event !== 'string') {
    throw new EventsError(
      EventsErrorCode.invalid_envelope,
      'Invalid envelope event: expected the event header as a string (an invalid name is dropped from typed, not refused).',
    );
  }
  const body = storedBody(input.body);
  const extraction = extract({
    scheme: input.scheme,
    event: input.event,
    body,
    trustedActors: input.trustedActors,
  });
  const envelope: EnvelopeV1 = {
    version: ENVELOPE_VERSION,
    kind,
    source: input.source,
    event_id: eventIdFor(input.delivery),
    received_at: formatTimestamp(input.receivedAt ?? new Date()),
    webhook: { event: input.event, delivery: typeof input.delivery === 'string' ? input.delivery : '', body },
    typed: extraction.typed,
  };
  return { envelope, extraction };
}

/** Serialises an envelope as the file holds it (two-space JSON and a final newline). */
export function serializeEnvelope(envelope: EnvelopeV1): string {
  return `${JSON.stringify(envelope, null, 2)}\n`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads an envelope for a replay (`harness trigger --event`): checks its shape, then extracts `typed`
 * again from `webhook.body` with the configured scheme and trusted actors. A stored `typed` is ignored,
 * so a hand-edited one smuggles nothing; the replay renders exactly what the original run rendered.
 *
 * Accepts the file's text or its parsed value. Never throws.
 */
export function parseEnvelope(input: unknown, options: ReplayOptions): EnvelopeResult {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      return {
        ok: false,
        issues: [
          {
            code: 'invalid_json',
            path: '',
            message:
              'The envelope is not valid JSON; expected a file written by writeEnvelope. Restore it from the run record.',
          },
        ],
      };
    }
  }
  if (!isRecord(value)) {
    return {
      ok: false,
      issues: [
        {
          code: 'not_an_object',
          path: '',
          message: 'The envelope is not a JSON object; expected {"version": 1, …}.',
        },
      ],
    };
  }
  if (value.version !== ENVELOPE_VERSION) {
    return {
      ok: false,
      issues: [
        {
          code: 'unsupported_version',
          path: 'version',
          message: `Unsupported envelope version: expected ${ENVELOPE_VERSION}; this reader knows no other version.`,
        },
      ],
    };
  }
  const issues: EnvelopeIssue[] = [];
  const field = (path: string, ok: boolean, expected: string): void => {
    if (!ok)
      issues.push({
        code: 'invalid_field',
        path,
        message: `Invalid envelope field ${path}: expected ${expected}.`,
      });
  };
  const { kind, source, event_id: eventId, received_at: receivedAt, webhook } = value;
  field(
    'kind',
    typeof kind === 'string' && NAME_PATTERN.test(kind),
    `a kind matching ${NAME_PATTERN.source}`,
  );
  field(
    'source',
    typeof source === 'string' && SOURCE_PATTERN.test(source),
    `a source matching ${SOURCE_PATTERN.source}`,
  );
  field('event_id', isEventId(eventId), `an id matching ${EVENT_ID_PATTERN.source}`);
  field(
    'received_at',
    typeof receivedAt === 'string' &&
      TIMESTAMP_PATTERN.test(receivedAt) &&
      !Number.isNaN(Date.parse(receivedAt)),
    'an RFC 3339 UTC time such as 2026-09-22T05:10:00Z',
  );
  field('webhook', isRecord(webhook), 'an object {event, delivery, body}');
  if (isRecord(webhook)) {
    field('webhook.event', typeof webhook.event === 'string', 'the event name as a string');
    field('webhook.delivery', typeof webhook.delivery === 'string', 'the delivery id as a string');
    field('webhook.body', Object.hasOwn(webhook, 'body'), 'the delivery body');
  }
  if (issues.length === 0 && options.source !== undefined && source !== options.source) {
    issues.push({
      code: 'source_mismatch',
      path: 'source',
      message: `The envelope belongs to another source: expected ${options.source}. Replay it against the source that received it.`,
    });
  }
  if (issues.length > 0 || !isRecord(webhook)) return { ok: false, issues };
  let body: unknown;
  try {
    body = storedBody(webhook.body);
  } catch {
    return {
      ok: false,
      issues: [
        {
          code: 'invalid_field',
          path: 'webhook.body',
          message: 'Invalid envelope field webhook.body: expected JSON.',
        },
      ],
    };
  }
  const extraction = extract({
    scheme: options.scheme,
    event: webhook.event,
    body,
    trustedActors: options.trustedActors,
  });
  const envelope: EnvelopeV1 = {
    version: ENVELOPE_VERSION,
    kind: kind as string,
    source: source as string,
    event_id: eventId as string,
    received_at: receivedAt as string,
    webhook: { event: webhook.event as string, delivery: webhook.delivery as string, body },
    typed: extraction.typed,
  };
  return { ok: true, value: { envelope, extraction } };
}
