// Bounding what reaches the model: serialized sizes, identifiers cut short, strings inside answers.
import { LIMITS } from './limits';

/** Serialized size in bytes of a JSON value, as the model would receive it. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

/** Cuts a text to an identifier's length. */
export function cutId(text: string, max: number = LIMITS.maxIdentifier): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A copy of a JSON value with every string cut to `max` characters (marked `…`) and nesting past
 * 64 levels replaced: what an admitted answer looks like to the model. The copy has the value's
 * type: a string stays a string, and the levels past 64 lie inside values typed as any JSON.
 */
export function boundStrings<T>(value: T, max: number = LIMITS.entryString): T {
  return bound(value, max, 0) as T;
}

function bound(value: unknown, max: number, depth: number): unknown {
  if (typeof value === 'string') return value.length <= max ? value : `${value.slice(0, max)}…`;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 64) return '…';
  if (Array.isArray(value)) return value.map((v) => bound(v, max, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty, not assignment: a host key "__proto__" stays a plain key of the copy.
    Object.defineProperty(out, k, {
      value: bound(v, max, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
