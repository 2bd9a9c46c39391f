// How one token of a signature line is written: a name (parameter, output, command, scope) or a
// literal (enum member, const, default). Plain text stays bare; anything that could be misread, or
// could break the line, is quoted and escaped as JSON (seed 000, "list_commands").

/** Own-property read that never reaches `Object.prototype` (`constructor`, `__proto__`). */
export function own(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

/** True for a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The seed's list (empty, whitespace, `|`, a quote, a backslash, a control character) plus what would
// break the line's own grammar: `,` `(` `)` `[` `]` `{` `}` `=` `:` `&` and the cut mark `…`.
// Format and separator characters (bidi overrides, zero-width spaces) and lone surrogates count as
// control characters: they hide what a value really is.
const ODD_LITERAL = /[\s|"'`\\,()[\]{}=:&…]|[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
// A name may not hold `?` either, which marks an optional parameter.
const ODD_NAME = /[\s|"'`\\,()[\]{}=:&?…]|[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
// A bare string must not read as a type or as another JSON value (`string`, `42`, `true`).
const TYPE_WORDS = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'null',
  'object',
  'array',
  'any',
  'never',
  'true',
  'false',
]);
const NUMBER_LIKE = /^[-+.]?\d/;
// JSON.stringify already escapes C0 controls and lone surrogates; these it leaves raw.
const INVISIBLE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

/** JSON text of a string, with every invisible or line-breaking character escaped. */
export function quote(text: string): string {
  return escapeInvisible(JSON.stringify(text));
}

function escapeInvisible(json: string): string {
  return json.replace(INVISIBLE, (c) => {
    let out = '';
    // An astral character (a tag character, say) is escaped as its two UTF-16 halves, as JSON does.
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

/** A parameter, output, command or scope name: bare when plain, else JSON-quoted. */
export function formatName(name: string): string {
  return name !== '' && !ODD_NAME.test(name) ? name : quote(name);
}

/** An enum member, const or default: a plain string bare, anything else as escaped JSON. */
export function formatLiteral(value: unknown): string {
  if (typeof value === 'string') {
    const plain =
      value !== '' && !ODD_LITERAL.test(value) && !TYPE_WORDS.has(value) && !NUMBER_LIKE.test(value);
    return plain ? value : quote(value);
  }
  try {
    const json = JSON.stringify(value);
    // undefined, functions and symbols have no JSON text; only a non-JSON caller can pass them.
    return typeof json === 'string' ? escapeInvisible(json) : 'any';
  } catch {
    // A cyclic or BigInt value (never JSON): say nothing rather than something false.
    return '…';
  }
}
