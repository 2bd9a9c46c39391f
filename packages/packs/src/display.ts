// A command's `display` line: the template its pack's author writes for people
// (`git commit --message "{{message}}"`), parsed at load and rendered with a call's values when a
// person is asked to approve it. Values come from an agent: each is escaped so that it cannot close
// the author's quotes, start a new line or repaint the terminal, and each is cut when long.
import type { PackCommand } from './types';

/** Characters of one value a display line shows before it is cut. */
export const DISPLAY_VALUE_CHARS = 120;
/** Characters of a whole rendered display line before it is cut. */
export const DISPLAY_LINE_CHARS = 400;

/** One piece of a parsed display template: literal text, or an input's value. */
export type DisplayPart =
  | { readonly text: string }
  | {
      readonly input: string;
      readonly optional: boolean;
      /** Inside a pair of double quotes the author wrote: the value is escaped, never quoted again. */
      readonly quoted: boolean;
    };

/** A parsed display template, or where and why it does not parse. */
export type ParsedDisplay =
  | { readonly ok: true; readonly parts: readonly DisplayPart[] }
  | { readonly ok: false; readonly offset: number; readonly message: string };

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const NAME = /^\s*([a-z][a-z0-9_]*)(\?)?\s*$/;

/** Parses a display template: `{{name}}` and `{{name?}}` placeholders in literal text. */
export function parseDisplay(template: string): ParsedDisplay {
  const parts: DisplayPart[] = [];
  let inQuotes = false;
  let last = 0;
  const literal = (text: string): void => {
    if (text === '') return;
    for (const c of text.replace(/\\./g, '')) if (c === '"') inQuotes = !inQuotes;
    parts.push({ text });
  };
  for (const m of template.matchAll(PLACEHOLDER)) {
    const before = template.slice(last, m.index);
    const stray = before.search(/\{\{|\}\}/);
    if (stray >= 0)
      return { ok: false, offset: last + stray, message: 'expected {{name}}: a brace pair is not closed' };
    literal(before);
    const name = NAME.exec(m[1] ?? '');
    if (name === null) {
      return {
        ok: false,
        offset: m.index,
        message: `expected {{name}} or {{name?}} naming an input; found {{${m[1]}}}`,
      };
    }
    parts.push({ input: name[1]!, optional: name[2] === '?', quoted: inQuotes });
    last = m.index + m[0].length;
  }
  const rest = template.slice(last);
  const stray = rest.search(/\{\{|\}\}/);
  if (stray >= 0)
    return { ok: false, offset: last + stray, message: 'expected {{name}}: a brace pair is not closed' };
  literal(rest);
  return { ok: true, parts };
}

// C0 and C1 controls, DEL, zero-width and bidirectional marks, the BOM, line and paragraph separators.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;
// What may stand unquoted outside the author's quotes: plain words, paths, flags, `key=value`.
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with `\` and `"` escaped and every hidden character written as an escape. */
const escaped = (text: string): string =>
  text
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(HIDDEN, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The first `max` characters of `text`, and the marker saying how many more there are. */
function cut(text: string, max: number): { kept: string; marker: string } {
  const chars = [...text];
  return chars.length > max
    ? { kept: chars.slice(0, max).join(''), marker: `…(+${chars.length - max} chars)` }
    : { kept: text, marker: '' };
}

/** One value as the line shows it: escaped, cut, and quoted unless plain or inside the author's quotes. */
function shown(value: string, quoted: boolean): string {
  const { kept, marker } = cut(value, DISPLAY_VALUE_CHARS);
  if (quoted) return `${escaped(kept)}${marker}`;
  return PLAIN.test(kept) ? `${kept}${marker}` : `"${escaped(kept)}"${marker}`;
}

/** The text an input's value is shown as: its `values` text where the pack maps it, else the value. */
function valueText(command: PackCommand, name: string, value: unknown): string {
  const mapped = command.values[name]?.[String(value)];
  if (mapped !== undefined) return mapped;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The command's display line for a call's arguments (a left-out input shows its default, an
 * optional one nothing), each value escaped and cut at {@link DISPLAY_VALUE_CHARS} characters, the
 * line at {@link DISPLAY_LINE_CHARS}; `null` when the command declares no `display`.
 */
export function renderDisplay(command: PackCommand, args: Readonly<Record<string, unknown>>): string | null {
  if (command.display === undefined) return null;
  const parsed = parseDisplay(command.display);
  if (!parsed.ok) return null;
  // An optional input the call left out shows nothing, and takes one space beside it along.
  const pieces: string[] = [];
  for (const [i, p] of parsed.parts.entries()) {
    if ('text' in p) {
      pieces.push(p.text);
      continue;
    }
    const value = args[p.input] ?? command.inputs[p.input]?.default;
    if (value !== undefined && value !== null) {
      pieces.push(shown(valueText(command, p.input, value), p.quoted));
      continue;
    }
    const next = parsed.parts[i + 1];
    const before = pieces.at(-1);
    if (before?.endsWith(' ') && (next === undefined || ('text' in next && next.text.startsWith(' '))))
      pieces[pieces.length - 1] = before.slice(0, -1);
  }
  const { kept, marker } = cut(pieces.join(''), DISPLAY_LINE_CHARS);
  return `${kept}${marker}`;
}

/** A literal preview argument, or `{{name}}`: the call's value of input `name`. */
export const PREVIEW_FROM_CALL = /^\{\{\s*([a-z][a-z0-9_]*)\??\s*\}\}$/;

/**
 * The arguments of a command's preview for a call: each literal as written, each `{{name}}` the
 * call's value of that input (left out when the call has none and the input has no default).
 */
export function previewArgs(
  command: PackCommand,
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(command.preview?.args ?? {})) {
    const from = typeof value === 'string' ? PREVIEW_FROM_CALL.exec(value) : null;
    if (from === null) {
      out[name] = value;
      continue;
    }
    const given = args[from[1]!] ?? command.inputs[from[1]!]?.default;
    if (given !== undefined) out[name] = given;
  }
  return out;
}
