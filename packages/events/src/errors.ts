import { CodedError, type CodeOf, defineCodes } from '@harness/errors';

/**
 * Every code an {@link EventsError} can carry. Callers branch on `code`, never on message text.
 */
export const EventsErrorCode = defineCodes({
  /** `writeEnvelope` was given a value that would make an envelope no replay can read back. */
  invalid_envelope: 'invalid_envelope',
  /** The envelope file could not be written (directory missing, permissions, disk full). */
  envelope_write_failed: 'envelope_write_failed',
  /** `buildRenderContext` was given a run value outside its domain (e.g. an unknown `run.trigger`). */
  invalid_context: 'invalid_context',
});

/** One of the {@link EventsErrorCode} values. */
export type EventsErrorCode = CodeOf<typeof EventsErrorCode>;

/**
 * The one error class of `@harness/events`.
 *
 * Only the envelope writer and `buildRenderContext` throw it; extraction and envelope reading report failures as data.
 * Messages never carry a payload value, so a secret in a delivery cannot reach a log through one.
 */
export class EventsError extends CodedError<EventsErrorCode> {
  override readonly name = 'EventsError';
}
