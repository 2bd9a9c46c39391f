// o200k tokens of what an agent CLI handed its model for each tool result, beside the tokens of the
// text content `harness serve` sent with it (the reading the product means a model to see).
import { resultText, ToolOutcome } from '@harness/commands';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { MessagesHandedResult } from './fake-anthropic';
import type { HandedResult } from './fake-server';

/** Which part of the MCP tool result the client handed its model. */
export const HandedForm = {
  /** The result's `structuredContent`, serialized as JSON. */
  structured: 'structuredContent JSON',
  /** The result's text content. */
  text: 'text content',
  /** JSON that is both: a listing's text content is its structured result's JSON. */
  same: 'JSON, the text content too',
} as const;
export type HandedForm = (typeof HandedForm)[keyof typeof HandedForm];

/** One tool result's measure. */
export interface TokenRow {
  kind: string;
  tool: string;
  isError: boolean;
  handed: HandedForm;
  handedBytes: number;
  handedTokens: number;
  /** Tokens of serve's text content for the same result (its `resultText`); equal to handedTokens when that is what was handed. */
  textContentTokens: number;
}

/** The o200k token count of a text. */
export function o200k(text: string): number {
  return encode(text).length;
}

/**
 * The structured result a handed text is the JSON of, as parsed (its keys in the order sent), or
 * undefined when the text is not the JSON of a tool outcome.
 */
export function structuredOf(text: string): ToolOutcome | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return ToolOutcome.safeParse(value).success ? (value as ToolOutcome) : undefined;
}

/**
 * Measures one handed result as the row `kind`: `body` is the part of its text that may be the JSON of
 * a tool outcome (all of it, unless the client put something before it), `isError` the client's mark.
 */
export function measureHanded(
  h: HandedResult,
  kind: string,
  read: { body: string; isError: boolean },
): TokenRow {
  const structured = structuredOf(read.body);
  const text = structured ? resultText(structured) : read.body;
  return {
    kind,
    tool: h.name,
    isError: read.isError,
    handed: !structured ? HandedForm.text : text === read.body ? HandedForm.same : HandedForm.structured,
    handedBytes: Buffer.byteLength(h.text),
    handedTokens: o200k(h.text),
    textContentTokens: o200k(text),
  };
}

/** Measures each handed result that `kinds` names (by the plan step it answers) with `measure`. */
export function measureRows<Handed extends HandedResult, Row extends TokenRow>(
  handed: readonly Handed[],
  kinds: ReadonlyMap<number, string>,
  measure: (h: Handed, kind: string) => Row,
): Row[] {
  return handed.flatMap((h) => {
    const kind = kinds.get(h.step);
    return kind === undefined ? [] : [measure(h, kind)];
  });
}

/** Measures each tool_result Claude Code handed, marked an error when the block says so. */
export function tokenRows(
  handed: readonly MessagesHandedResult[],
  kinds: ReadonlyMap<number, string>,
): TokenRow[] {
  return measureRows(handed, kinds, (h, kind) =>
    measureHanded(h, kind, { body: h.text, isError: h.block.is_error === true }),
  );
}

/** The rows as a plain-text table a person reads in a test's output. */
export function formatTokenTable(rows: readonly TokenRow[]): string {
  const head = ['result', 'handed to the model', 'tokens', 'text content tokens'];
  const body = rows.map((r) => [r.kind, r.handed, String(r.handedTokens), String(r.textContentTokens)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
