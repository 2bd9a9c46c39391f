// One schema position → the type text a signature shows for it (seed 000, "list_commands"; the cases
// the seed leaves open are decided in docs/signatures.md, "Open cases").
import { formatLiteral, isObject } from './format';

/** One member of a union as text; `compound` marks an intersection, which `[]` must parenthesise. */
export interface Alt {
  readonly text: string;
  readonly compound: boolean;
}

/** A rendered position: `'any'` (anything is accepted) or its union members (none: `never`). */
export type TypeRepr = 'any' | readonly Alt[];

/** Past this many characters a union stops collecting members: the line will be cut anyway. */
export const COLLECT_LIMIT = 400;
// Nested positions past this depth read `any`: a schema that deep cannot fit a 400-character line.
const MAX_DEPTH = 12;

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const KNOWN_TYPES = new Set([...SCALAR_TYPES, 'object', 'array']);

const alt = (text: string, compound = false): Alt => ({ text, compound });

/** The text of a whole position: members joined by `|`, `never` for none. */
export function typeText(repr: TypeRepr): string {
  if (repr === 'any') return 'any';
  if (repr.length === 0) return 'never';
  return repr.map((a) => a.text).join('|');
}

/**
 * The declared type names of a schema: `undefined` when `type` says nothing usable, otherwise the
 * known names it lists (an empty list for `type: []`, which nothing satisfies).
 */
export function declaredTypes(schema: Record<string, unknown>): string[] | undefined {
  const type = schema.type;
  if (typeof type === 'string') return KNOWN_TYPES.has(type) ? [type] : undefined;
  if (!Array.isArray(type)) return undefined;
  if (type.length === 0) return [];
  const known: string[] = [];
  for (const t of type) if (typeof t === 'string' && KNOWN_TYPES.has(t) && !known.includes(t)) known.push(t);
  return known.length > 0 ? known : undefined;
}

/** The name a `$ref` ends in: its last JSON-pointer or path segment, unescaped. */
export function refName(ref: string): string | undefined {
  const tail = ref.split(/[/#]/).pop() ?? '';
  let name = tail.replace(/~1/g, '/').replace(/~0/g, '~');
  try {
    name = decodeURIComponent(name);
  } catch {
    // A malformed escape stays as written.
  }
  return name === '' ? undefined : name;
}

/** Collects union members lazily, deduplicated, stopping once they could no longer fit a line. */
class UnionBuilder {
  readonly alts: Alt[] = [];
  private width = 0;
  open = false;

  /** Adds one position's members; returns false once no more are worth collecting. */
  add(repr: TypeRepr): boolean {
    if (repr === 'any') {
      this.open = true;
      return false;
    }
    for (const a of repr) {
      // Linear search: the width cap keeps a union to a few hundred short members at most.
      if (this.alts.some((b) => b.text === a.text)) continue;
      this.alts.push(a);
      this.width += a.text.length + 1;
      if (this.width > COLLECT_LIMIT) return false;
    }
    return true;
  }

  result(): TypeRepr {
    return this.open ? 'any' : this.alts;
  }
}

function union(reprs: readonly TypeRepr[]): TypeRepr {
  const b = new UnionBuilder();
  for (const r of reprs) if (!b.add(r)) break;
  return b.result();
}

function intersection(reprs: readonly TypeRepr[]): TypeRepr {
  const kept: (readonly Alt[])[] = [];
  const texts: string[] = [];
  for (const r of reprs) {
    if (r === 'any') continue;
    if (r.length === 0) return [];
    const text = typeText(r);
    if (texts.includes(text)) continue;
    texts.push(text);
    kept.push(r);
  }
  if (kept.length === 0) return 'any';
  if (kept.length === 1) return kept[0]!;
  return [alt(kept.map((r) => (r.length === 1 ? r[0]!.text : `(${typeText(r)})`)).join('&'), true)];
}

// Shared results for the plain scalar positions that make up most real schemas.
const SCALAR_REPRS: Readonly<Record<string, TypeRepr>> = Object.fromEntries(
  [...SCALAR_TYPES].map((t) => [t, Object.freeze([alt(t)])]),
);
const COMBINATORS = ['anyOf', 'oneOf', 'allOf'] as const;

/**
 * Renders a schema position (a parameter's, an item's, a union member's). Total on any value:
 * `stack` holds the positions being rendered, so a cyclic object graph reads `any` where it loops.
 */
export function renderType(schema: unknown, depth = 0, stack: object[] = []): TypeRepr {
  if (schema === false) return [];
  if (!isObject(schema)) return 'any';
  if (depth > MAX_DEPTH || stack.includes(schema)) return 'any';
  stack.push(schema);
  try {
    return withNullable(schema, renderObject(schema, depth, stack));
  } finally {
    stack.pop();
  }
}

function withNullable(schema: Record<string, unknown>, repr: TypeRepr): TypeRepr {
  // OpenAPI 3.0's `nullable: true`, which tool schemas converted from OpenAPI carry.
  if (schema.nullable !== true || repr === 'any' || repr.length === 0) return repr;
  return union([repr, [alt('null')]]);
}

// Keyword names are read directly: none of them exists on Object.prototype, and a JSON value's
// objects have no other prototype. Names that come from the data itself go through `own`.
function renderObject(schema: Record<string, unknown>, depth: number, stack: object[]): TypeRepr {
  // A combinator nothing can satisfy makes the whole position `never`, whatever else it says.
  let combinators: TypeRepr[] | undefined;
  for (const key of COMBINATORS) {
    const members = schema[key];
    if (!Array.isArray(members)) continue;
    if (members.length === 0) {
      if (key !== 'allOf') return [];
      continue;
    }
    let repr: TypeRepr;
    if (key === 'allOf') {
      repr = intersection(members.map((m) => renderType(m, depth + 1, stack)));
    } else {
      const b = new UnionBuilder();
      for (const m of members) if (!b.add(renderType(m, depth + 1, stack))) break;
      repr = b.result();
    }
    if (repr !== 'any' && repr.length === 0) return [];
    if (combinators === undefined) combinators = [repr];
    else combinators.push(repr);
  }

  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const name = refName(ref);
    if (name !== undefined) return [alt(formatLiteral(name))];
  }
  if (Object.hasOwn(schema, 'const')) return [alt(formatLiteral(schema.const))];
  const members = schema.enum;
  if (Array.isArray(members)) {
    const b = new UnionBuilder();
    for (const m of members) if (!b.add([alt(formatLiteral(m))])) break;
    return b.result();
  }

  const type = schema.type;
  if (typeof type === 'string' && SCALAR_TYPES.has(type)) return SCALAR_REPRS[type]!;
  const types = declaredTypes(schema);
  if (types !== undefined) {
    if (types.length === 1) return [alt(typeName(types[0]!, schema, depth, stack))];
    return union(types.map((t) => [alt(typeName(t, schema, depth, stack))]));
  }
  if (isObject(schema.properties)) return [alt(typeName('object', schema, depth, stack))];
  if (Object.hasOwn(schema, 'items') || Object.hasOwn(schema, 'prefixItems')) {
    return [alt(typeName('array', schema, depth, stack))];
  }
  // No type of its own: the combinators say what it is.
  return combinators === undefined ? 'any' : intersection(combinators);
}

function typeName(type: string, schema: Record<string, unknown>, depth: number, stack: object[]): string {
  if (SCALAR_TYPES.has(type)) return type;
  if (type === 'object') {
    const props = schema.properties;
    if (!isObject(props)) return 'object';
    for (const _ in props) if (Object.hasOwn(props, _)) return '{...}';
    return 'object';
  }
  return arrayText(schema, depth, stack);
}

function arrayText(schema: Record<string, unknown>, depth: number, stack: object[]): string {
  const prefix = schema.prefixItems;
  const items = schema.items;
  // A tuple: 2020-12 `prefixItems` (rest in `items`) or draft-07 array `items` (rest in `additionalItems`).
  const tuple = Array.isArray(prefix) ? prefix : Array.isArray(items) ? items : undefined;
  if (tuple !== undefined) {
    const rest = Array.isArray(prefix) ? items : schema.additionalItems;
    const parts: string[] = [];
    let width = 0;
    for (const s of tuple) {
      const text = typeText(renderType(s, depth + 1, stack));
      parts.push(text);
      width += text.length + 2;
      // Too wide for any line: the rest would only be cut away.
      if (width > COLLECT_LIMIT) return `[${parts.join(', ')}, …]`;
    }
    const maxItems = schema.maxItems;
    const closed = rest === false || (typeof maxItems === 'number' && maxItems <= tuple.length);
    if (!closed) parts.push(`...${elementsText(renderType(rest ?? true, depth + 1, stack))}`);
    return `[${parts.join(', ')}]`;
  }
  return elementsText(renderType(items ?? true, depth + 1, stack));
}

function elementsText(repr: TypeRepr): string {
  if (repr === 'any') return 'any[]';
  if (repr.length === 0) return 'never[]';
  if (repr.length === 1 && !repr[0]!.compound) return `${repr[0]!.text}[]`;
  return `(${typeText(repr)})[]`;
}
