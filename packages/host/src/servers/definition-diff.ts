// What a review shows of a tool definition held for it (`harness servers review`, the console's
// Servers view): the changes against the definition a person accepted (the description, each
// keyword of each schema, each annotation), or the whole definition of a new tool. Every text is the server's: shown quoted, escaped and cut, and
// flagged where a person should read twice (long, hidden characters, words addressed to a model).
import { shownValue } from '../show';

/** Characters of a description shown before it is cut (what a model is shown of it, too). */
export const DESCRIPTION_SHOWN = 1000;
/** Characters of a schema keyword's or an annotation's JSON shown before it is cut. */
export const VALUE_SHOWN = 300;

// C0 and C1 controls but newline and tab, DEL, zero-width and bidirectional marks, the BOM,
// line and paragraph separators: nothing a description needs, everything that hides text.
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;
// The markers of the untrusted fence harness puts around text it did not write: a description that
// holds one could pose as the end of a fence, or as harness's own words.
const FENCE = /<\/?untrusted-data\b/i;
// Words addressed to the model rather than describing the tool.
const ADDRESSED =
  /\b(ignore|disregard|forget)\b.{0,40}\b(instructions?|rules?|prompts?)\b|\bsystem prompt\b|\b(you must|always|instead) (call|run|use)\b|\b[a-z][a-z0-9_-]*\.[a-z][a-z0-9_-]*\(/i;

/** One line of a review: what changed, and the flags on the text shown. */
export interface DiffLine {
  /** `description`, `inputSchema.properties`, `annotations.readOnlyHint`, … */
  readonly member: string;
  /** Shown as accepted; absent for a new member (or a new tool). */
  readonly before?: string;
  /** Shown as listed now; absent for a member removed. */
  readonly after?: string;
  readonly flags: readonly string[];
}

type Definition = Readonly<Record<string, unknown>>;

/** A description as shown, with its flags. */
function description(text: string): { shown: string; flags: string[] } {
  const flags: string[] = [];
  const length = [...text].length;
  if (length > DESCRIPTION_SHOWN) flags.push(`long: ${length} characters, shown cut at ${DESCRIPTION_SHOWN}`);
  if (HIDDEN.test(text)) flags.push('holds hidden or control characters, shown escaped');
  if (FENCE.test(text)) flags.push('holds fence markers (<untrusted-data>): it could pose as harness text');
  if (ADDRESSED.test(text))
    flags.push(
      'reads as instructions to the model (names other tools, or tells it to ignore its instructions)',
    );
  return { shown: shownValue(text, DESCRIPTION_SHOWN), flags };
}

/** A JSON value as shown: a string quoted, anything else its JSON text; hidden characters escaped, cut. */
function value(v: unknown): string {
  if (typeof v === 'string') return description(v).shown;
  const text = (JSON.stringify(v) ?? 'null').replace(
    new RegExp(HIDDEN.source, 'g'),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const chars = [...text];
  return chars.length > VALUE_SHOWN
    ? `${chars.slice(0, VALUE_SHOWN).join('')}…(+${chars.length - VALUE_SHOWN} chars)`
    : text;
}

/** One member's line, or none when it is unchanged. */
function line(member: string, before: unknown, after: unknown): DiffLine | undefined {
  if (JSON.stringify(before) === JSON.stringify(after)) return undefined;
  const text = typeof after === 'string' ? description(after) : undefined;
  return {
    member,
    ...(before === undefined ? {} : { before: value(before) }),
    ...(after === undefined ? {} : { after: text?.shown ?? value(after) }),
    flags: text?.flags ?? [],
  };
}

/** The members of an object member (a schema, the annotations), each its own line. */
function members(name: string, before: unknown, after: unknown): DiffLine[] {
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  // A member that is not an object (a server may list anything) is one line, whole.
  if ((before !== undefined && !isRecord(before)) || (after !== undefined && !isRecord(after)))
    return [line(name, before, after)].filter((l): l is DiffLine => l !== undefined);
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
  return keys.map((k) => line(`${name}.${k}`, b[k], a[k])).filter((l): l is DiffLine => l !== undefined);
}

/**
 * The lines of a definition listed now against the one accepted (`accepted` undefined: a new tool,
 * every member of it shown).
 */
export function definitionDiff(accepted: Definition | undefined, listed: Definition): DiffLine[] {
  const before = accepted ?? {};
  const out: DiffLine[] = [];
  for (const m of ['name', 'title', 'description'] as const) {
    const l = line(m, before[m], listed[m]);
    if (l !== undefined) out.push(l);
  }
  for (const m of ['inputSchema', 'outputSchema', 'annotations'] as const)
    out.push(...members(m, before[m], listed[m]));
  return out;
}
