import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/** One argument error: a JSON Pointer into the arguments and what is wrong there. */
export interface ArgError {
  path: string;
  message: string;
}

// `strict: false` so that the host's own `x-*` keywords (x-source) and unknown formats pass through.
// `verbose` so that an error carries the input's own schema: a pattern's error says what the input
// takes in words (its description), not the regular expression.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, verbose: true });

/** How many compiled validators the host keeps (least recently used dropped first). */
export const VALIDATORS_KEPT = 512;

// By schema text, least recently used first: a schema compiled once serves every equal schema, and a
// long-lived host that sees ever new schemas keeps at most VALIDATORS_KEPT of them.
const byText = new Map<string, { fn: ValidateFunction; schema: object | boolean }>();
// By schema object: the manifest's own rows skip serialising their schema on every call.
const byObject = new WeakMap<object, ValidateFunction>();

function compile(schema: unknown): ValidateFunction | undefined {
  if (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object')) return undefined;
  const hit = typeof schema === 'object' ? byObject.get(schema) : undefined;
  if (hit) return hit;
  const key = JSON.stringify(schema);
  let entry = byText.get(key);
  if (entry) {
    byText.delete(key);
  } else {
    entry = { fn: ajv.compile(schema as object), schema };
  }
  byText.set(key, entry);
  if (typeof schema === 'object') byObject.set(schema, entry.fn);
  if (byText.size > VALIDATORS_KEPT) {
    const [oldKey, old] = byText.entries().next().value as [string, { schema: object | boolean }];
    byText.delete(oldKey);
    // Ajv keeps its own cache by schema object; drop the entry there too.
    if (typeof old.schema === 'object') ajv.removeSchema(old.schema);
  }
  return entry.fn;
}

const toArgError = (e: ErrorObject): ArgError => {
  const missing = (e.params as { missingProperty?: string }).missingProperty;
  const extra = (e.params as { additionalProperty?: string }).additionalProperty;
  const path =
    missing !== undefined
      ? `${e.instancePath}/${missing}`
      : extra !== undefined
        ? `${e.instancePath}/${extra}`
        : e.instancePath;
  const message =
    extra !== undefined
      ? `unexpected property "${extra}"`
      : e.keyword === 'pattern'
        ? patternMessage(e)
        : (e.message ?? 'is invalid');
  return { path: path === '' ? '/' : path, message };
};

/** A value that fails its input's pattern, said with the input's description when it has one. */
function patternMessage(e: ErrorObject): string {
  const description = (e.parentSchema as { description?: unknown } | undefined)?.description;
  const value = typeof e.data === 'string' ? e.data : String(e.data);
  const shown = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof description !== 'string' || description === '') {
    return `${shown} does not have the form this input takes (its pattern in the schema)`;
  }
  return `${shown} is not accepted: expected ${description.charAt(0).toLowerCase()}${description.slice(1)}`;
}

/** Validates `args` against a row's `inputs` schema; an empty list means valid. */
export function validateArgs(schema: unknown, args: unknown): ArgError[] {
  const fn = compile(schema);
  if (!fn) return [{ path: '/', message: 'the command declares no usable argument schema' }];
  if (fn(args)) return [];
  const seen = new Set<string>();
  const out: ArgError[] = [];
  for (const e of fn.errors ?? []) {
    const err = toArgError(e);
    const k = `${err.path}\u0000${err.message}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(err);
    }
  }
  return out;
}
