// Reading a tool's input: the depth guard every input passes before anything walks it, and the one
// parse of it against the tool's zod schema, bad input kept as data.
import { z } from 'zod';
import { notDelivered } from './failed-to-deliver';
import { valueNestsDeeperThan } from './json';
import { LIMITS } from './limits';
import type { NotDeliveredOutcome } from './outcome';
import { DeliveryCode } from './outcome-codes';
import type { ToolContext } from './tool';

/** What a model reads for a text or value nested past {@link LIMITS.maxInputDepth}. */
export function tooDeep(): NotDeliveredOutcome {
  return notDelivered(
    DeliveryCode.invalid_input,
    `The tool input nests arrays and objects deeper than ${LIMITS.maxInputDepth} levels; flatten it. Nothing was sent.`,
  );
}

/**
 * Wraps a tool's `execute` so an input nested past {@link LIMITS.maxInputDepth} is refused before
 * the tool walks it: recursive code (validation, `JSON.stringify`) would otherwise throw a
 * `RangeError`, and `execute` never throws for what a model sends.
 */
export function guardInput<O>(
  execute: (input: unknown, context: ToolContext) => Promise<O>,
): (input: unknown, context: ToolContext) => Promise<O | NotDeliveredOutcome> {
  return (input, context) =>
    valueNestsDeeperThan(input, LIMITS.maxInputDepth) ? Promise.resolve(tooDeep()) : execute(input, context);
}

/** An input read against its schema: the value, or the one problem a model is told of. */
export type InputRead<T> = { ok: true; value: T } | { ok: false; issue: z.core.$ZodIssue };

/** Reads `input` with `schema` once; a problem is data ({@link firstIssue}), never a throw. */
export function readInput<S extends z.ZodType>(schema: S, input: unknown): InputRead<z.output<S>> {
  const read = schema.safeParse(input);
  return read.success
    ? { ok: true, value: read.data }
    : { ok: false, issue: firstIssue(schema, read.error.issues) };
}

/**
 * Of the problems zod found reading an input with `schema`, the one a model is told of: the first
 * in the schema's reading order (its fields in the order it declares them, an array's items in
 * theirs), where an object's own problems (a key it does not take, a rule between its fields marked
 * {@link ahead}) come before those of its fields. zod reports an object's unknown keys and rules
 * after its fields; the tools have always named them first.
 */
function firstIssue(schema: z.ZodType, issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  let first = issues[0] as z.core.$ZodIssue;
  let firstOrder = readingOrder(schema, first);
  for (const issue of issues.slice(1)) {
    const order = readingOrder(schema, issue);
    if (comesBefore(order, firstOrder)) [first, firstOrder] = [issue, order];
  }
  return first;
}

/**
 * The params of a custom issue that {@link firstIssue} ranks ahead of the problems of the field its
 * path names and of every field after it: a rule between fields, checked before the field is read.
 */
export const ahead = { ahead: true } as const;

/** Where `issue` stands in `schema`'s reading order: a position per step of its path, -1 last for an object's own. */
function readingOrder(schema: z.ZodType, issue: z.core.$ZodIssue): number[] {
  const order: number[] = [];
  let at: z.ZodType | undefined = schema;
  for (const key of issue.path) {
    while (at instanceof z.ZodOptional || at instanceof z.ZodNullable) at = at.unwrap() as z.ZodType;
    if (at instanceof z.ZodObject && typeof key === 'string') {
      order.push(Object.keys(at.shape).indexOf(key));
      at = at.shape[key] as z.ZodType | undefined;
    } else if (at instanceof z.ZodArray && typeof key === 'number') {
      order.push(key);
      at = at.element as z.ZodType;
    } else {
      order.push(0);
      at = undefined;
    }
  }
  const own = issue.code === 'unrecognized_keys' || (issue.code === 'custom' && issue.params?.ahead === true);
  order.push(own ? -1 : 0);
  return order;
}

function comesBefore(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++)
    if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number);
  return a.length < b.length;
}
