// The argument schema → the parameter list (seed 000, "list_commands": required first, then optional,
// each group in schema order; `x-source` reads as optional; `(...)` for open arguments).
import { isObject, own } from './format';
import { declaredTypes } from './type';

/** One parameter as the signature shows it, before its type is rendered. */
export interface Param {
  readonly name: string;
  /** The schema to render: the property's own, or a synthetic `allOf`/`anyOf` of merged branches. */
  readonly schema: unknown;
  readonly required: boolean;
  /** The host fills it from the call's context (`x-source`), so it reads as optional. */
  readonly sourced: boolean;
}

/** What the argument schema says about the arguments as a whole. */
export type Params =
  | { readonly kind: 'open' }
  | { readonly kind: 'never' }
  | { readonly kind: 'list'; readonly params: readonly Param[] };

interface Acc {
  schemas: unknown[];
  mode: 'allOf' | 'anyOf';
  required: boolean;
  sourced: boolean;
}

type Collected = { kind: 'open' } | { kind: 'never' } | { kind: 'list'; params: Map<string, Acc> };

const OPEN: Collected = { kind: 'open' };
const NEVER: Collected = { kind: 'never' };
// Root `$ref` hops and nested `allOf`/`anyOf` at the root are followed this deep, no deeper.
const MAX_DEPTH = 8;

/** Reads the parameters of an argument schema. Total: any JSON value, cycles included. */
export function readParams(schema: unknown): Params {
  const collected = collect(schema, schema, 0, []);
  if (collected.kind !== 'list') return collected;
  const params: Param[] = [];
  for (const [name, acc] of collected.params) {
    const one = acc.schemas.length === 1;
    params.push({
      name,
      schema: one ? acc.schemas[0] : { [acc.mode]: acc.schemas },
      required: acc.required,
      sourced: acc.sourced,
    });
  }
  return { kind: 'list', params };
}

function isSourced(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  const source = schema['x-source'];
  return typeof source === 'string' && source !== '';
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    try {
      key = decodeURIComponent(key);
    } catch {
      // A malformed escape is looked up as written.
    }
    if (Array.isArray(node)) node = /^\d+$/.test(key) ? node[Number(key)] : undefined;
    else if (isObject(node)) node = own(node, key);
    else return undefined;
  }
  return node;
}

function collect(schema: unknown, root: unknown, depth: number, stack: object[]): Collected {
  if (schema === false) return NEVER;
  if (!isObject(schema) || depth > MAX_DEPTH || stack.includes(schema)) return OPEN;
  stack.push(schema);
  try {
    return collectObject(schema, root, depth, stack);
  } finally {
    stack.pop();
  }
}

function collectObject(
  schema: Record<string, unknown>,
  root: unknown,
  depth: number,
  stack: object[],
): Collected {
  // Keyword names are read directly (none is on Object.prototype); data-given names go through `own`.
  const ref = schema.$ref;
  // The arguments' own schema behind a local `$ref` (generators emit `{$ref: "#/definitions/Args"}`).
  if (typeof ref === 'string') {
    const target = resolvePointer(root, ref);
    return target === undefined ? OPEN : collect(target, root, depth + 1, stack);
  }
  // Arguments are always a JSON object: a schema that admits no object admits no call.
  const types = declaredTypes(schema);
  if (types !== undefined && !types.includes('object')) return NEVER;
  const members = schema.enum;
  if (Array.isArray(members) && !members.some(isObject)) return NEVER;
  if (Object.hasOwn(schema, 'const') && !isObject(schema.const)) return NEVER;
  const anyOf = schema.anyOf;
  const oneOf = schema.oneOf;
  if ((Array.isArray(anyOf) && anyOf.length === 0) || (Array.isArray(oneOf) && oneOf.length === 0))
    return NEVER;

  const params = new Map<string, Acc>();
  const properties = schema.properties;
  const requiredList = schema.required;
  const required: readonly unknown[] = Array.isArray(requiredList) ? requiredList : [];
  let declares = isObject(properties) || schema.additionalProperties === false;
  if (isObject(properties)) {
    for (const name of Object.keys(properties)) {
      const prop = properties[name];
      params.set(name, {
        schemas: [prop],
        mode: 'allOf',
        required: required.includes(name),
        sourced: isSourced(prop),
      });
    }
  }
  // A required name the properties do not declare is still one the call must send.
  for (const name of required) {
    if (typeof name === 'string' && !params.has(name))
      params.set(name, { schemas: [true], mode: 'allOf', required: true, sourced: false });
  }

  const allOf = schema.allOf;
  if (Array.isArray(allOf)) {
    for (const member of allOf) {
      const c = collect(member, root, depth + 1, stack);
      if (c.kind === 'never') return NEVER;
      if (c.kind === 'list') {
        declares = true;
        mergeAll(params, c.params);
      }
    }
  }
  for (const branches of [anyOf, oneOf]) {
    if (!Array.isArray(branches)) continue;
    const lists: (Map<string, Acc> | undefined)[] = [];
    for (const branch of branches) {
      const c = collect(branch, root, depth + 1, stack);
      if (c.kind !== 'never') lists.push(c.kind === 'list' ? c.params : undefined);
    }
    if (lists.length === 0) return NEVER;
    if (lists.every((l) => l === undefined)) continue;
    declares = true;
    mergeAll(params, mergeBranches(lists));
  }
  return params.size === 0 && !declares ? OPEN : { kind: 'list', params };
}

/** `allOf`: every member applies, so a parameter any member requires is required. */
function mergeAll(into: Map<string, Acc>, from: Map<string, Acc>): void {
  for (const [name, acc] of from) {
    const have = into.get(name);
    if (have === undefined) {
      into.set(name, { ...acc, schemas: [mergedSchema(acc)], mode: 'allOf' });
      continue;
    }
    have.schemas.push(mergedSchema(acc));
    have.required ||= acc.required;
    have.sourced ||= acc.sourced;
  }
}

/** `anyOf`/`oneOf`: a parameter is required only where every branch requires it. */
function mergeBranches(lists: readonly (Map<string, Acc> | undefined)[]): Map<string, Acc> {
  const out = new Map<string, Acc>();
  for (const list of lists) {
    if (list === undefined) continue;
    for (const [name, acc] of list) {
      const have = out.get(name);
      if (have === undefined)
        out.set(name, { schemas: [mergedSchema(acc)], mode: 'anyOf', required: false, sourced: acc.sourced });
      else {
        have.schemas.push(mergedSchema(acc));
        have.sourced ||= acc.sourced;
      }
    }
  }
  for (const [name, acc] of out) acc.required = lists.every((l) => l?.get(name)?.required === true);
  return out;
}

function mergedSchema(acc: Acc): unknown {
  return acc.schemas.length === 1 ? acc.schemas[0] : { [acc.mode]: acc.schemas };
}
