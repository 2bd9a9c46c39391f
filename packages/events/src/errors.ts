/**
 * Every code an {@link EventsError} can carry. Callers branch on `code`, never on message text.
 */
export const EventsErrorCode = {
  /** `writeEnvelope` was given a value that would make an envelope no replay can read back. */
  INVALID_ENVELOPE: 'invalid_envelope',
  /** The envelope file could not be written (directory missing, permissions, disk full). */
  ENVELOPE_WRITE_FAILED: 'envelope_write_failed',
  /** `buildRenderContext` was given a run value outside its domain (e.g. an unknown `run.trigger`). */
  INVALID_CONTEXT: 'invalid_context',
} as const;

/** The union of {@link EventsErrorCode} values. */
export type EventsErrorCode = (typeof EventsErrorCode)[keyof typeof EventsErrorCode];

/**
 * The one error class of `@harness/events`.
 *
 * Only the envelope writer and `buildRenderContext` throw it; extraction and envelope reading report failures as data.
 * Messages never carry a payload value, so a secret in a delivery cannot reach a log through one.
 */
export class EventsError extends Error {
  /** What failed, as a stable code. */
  readonly code: EventsErrorCode;

  constructor(code: EventsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventsError';
    this.code = code;
  }
}
