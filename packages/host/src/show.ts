// How values and audit events read for a person in a terminal (`loom audit`; an approval's lines,
// ./approvals/preview.ts, are made of these). Values come from an agent, so every one is shown
// quoted where it could be misread, with control and direction characters escaped (a value must not
// repaint the line that shows it), and cut when long (`--json` is whole).
import type { AuditEvent } from '@harness/store/records';

/** Characters of a value shown before it is cut. */
export const SHOWN_CHARS = 80;

// C0 and C1 controls, DEL, zero-width and bidirectional marks, the BOM, line and paragraph separators.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;
// What may stand unquoted: plain words, paths, flags, `key=value`.
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

const escapeHidden = (text: string): string =>
  text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A line of text a command printed, as a terminal shows it: every hidden character escaped. */
export const shownLine = (text: string): string => escapeHidden(text);

/** The first `max` characters of `text` and the marker saying how many more there are. */
function cut(text: string, max: number): { kept: string; marker: string } {
  const chars = [...text];
  return chars.length > max
    ? { kept: chars.slice(0, max).join(''), marker: `…(+${chars.length - max} chars)` }
    : { kept: text, marker: '' };
}

const quoted = (text: string): string => escapeHidden(JSON.stringify(text));

/**
 * One value as a person reads it: quoted (JSON string syntax) unless it is a plain word, with
 * hidden characters escaped; past {@link SHOWN_CHARS} characters it is cut, and the marker
 * `…(+N chars)` after the quotes says how many are not shown.
 */
export function shownValue(value: string, max = SHOWN_CHARS): string {
  const { kept, marker } = cut(value, max);
  return `${PLAIN.test(kept) ? kept : quoted(kept)}${marker}`;
}

/** An argv as one line: its elements, each shown by {@link shownValue}, separated by spaces. */
export function shownArgv(argv: readonly string[]): string {
  return argv.map((a) => shownValue(a)).join(' ');
}

/** Argument values as `name=value` pairs: strings always quoted, other values as JSON; each cut. */
export function shownArgs(args: Readonly<Record<string, unknown>>): string {
  const pairs = Object.entries(args).map(([name, v]) => {
    if (typeof v === 'string') {
      const { kept, marker } = cut(v, SHOWN_CHARS);
      return `${shownValue(name)}=${quoted(kept)}${marker}`;
    }
    const { kept, marker } = cut(JSON.stringify(v) ?? 'null', SHOWN_CHARS);
    return `${shownValue(name)}=${escapeHidden(kept)}${marker}`;
  });
  return pairs.length === 0 ? '(none)' : pairs.join('  ');
}

/** How long before `now` the time `at` was: `45s`, `12m`, `3h` or `2d` (rounded down). */
export function ageText(at: string, now: Date): string {
  const s = Math.max(0, Math.floor((now.getTime() - Date.parse(at)) / 1000));
  if (Number.isNaN(s)) return '?';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** An audit event in one line; a run shows the argv that ran. */
export function auditLine(e: AuditEvent): string {
  const run = (e.payload as { run?: { argv?: unknown } }).run;
  const argv =
    Array.isArray(run?.argv) && run.argv.every((a) => typeof a === 'string')
      ? `  argv: ${shownArgv(run.argv as string[])}`
      : '';
  const reason = e.reason ? ` (${escapeHidden(e.reason)})` : '';
  return `${e.seq}  ${e.at}  ${e.actor}  ${e.phase}  ${e.command}  ${e.outcome}/${e.code}${reason}${argv}\n`;
}
