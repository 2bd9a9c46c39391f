// One rule both stores apply to an audit event before they write it.
import type { AuditEventInput } from './types';

const NUL = /\u0000/g;

/**
 * The event with every NUL character in its text fields replaced by U+FFFD. A request may name a
 * command or job id holding NUL, and PostgreSQL text cannot hold one: rather than lose the row (an
 * audit hole a caller could aim for), both stores record the replacement. The payload is stored as
 * JSON text, which escapes NUL, so it keeps its values as given.
 */
export function auditText(event: AuditEventInput): AuditEventInput {
  const clean = (s: string): string => (s.includes('\u0000') ? s.replace(NUL, '\ufffd') : s);
  return {
    ...event,
    run: clean(event.run),
    actor: clean(event.actor),
    job: event.job === null ? null : clean(event.job),
    command: clean(event.command),
    action: clean(event.action),
    phase: event.phase,
    outcome: clean(event.outcome),
    code: clean(event.code),
    reason: event.reason === null ? null : clean(event.reason),
  };
}
