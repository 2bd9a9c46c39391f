import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/** One argument error: a JSON Pointer into the arguments and what is wrong there. */
export interface ArgError {
  path: string;
  message: string;
}

// `strict: false` so that the host's own `x-*` keywords (x-source) and unknown formats pass through.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const cache = new Map<string, ValidateFunction>();

function compile(schema: unknown): ValidateFunction | undefined {
  const key = JSON.stringify(schema);
  let fn = cache.get(key);
  if (!fn) {
    if (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object')) return undefined;
    fn = ajv.compile(schema as object);
    cache.set(key, fn);
  }
  return fn;
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
  const message = extra !== undefined ? `unexpected property "${extra}"` : (e.message ?? 'is invalid');
  return { path: path === '' ? '/' : path, message };
};

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

/** Validates a value against an arbitrary JSON Schema (used for the broker's request schema). */
export function validateAgainst(schema: object, value: unknown): ArgError[] {
  return validateArgs(schema, value);
}
