// o200k tokens of what an agent CLI handed its model for each tool result, beside the tokens of the
// text content `harness serve` sent with it (the reading the product means a model to see).
import { resultText, ToolOutcome } from '@harness/commands';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { HandedResult } from './fake-anthropic';

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

/** Measures each handed result; `kinds` names the rows, by plan step. */
export function tokenRows(handed: readonly HandedResult[], kinds: ReadonlyMap<number, string>): TokenRow[] {
  return handed
    .filter((h) => kinds.has(h.step))
    .map((h) => {
      const structured = structuredOf(h.text);
      const text = structured ? resultText(structured) : h.text;
      const handedTokens = o200k(h.text);
      return {
        kind: kinds.get(h.step) ?? '',
        tool: h.name,
        isError: h.block.is_error === true,
        handed: !structured ? HandedForm.text : text === h.text ? HandedForm.same : HandedForm.structured,
        handedBytes: Buffer.byteLength(h.text),
        handedTokens,
        textContentTokens: o200k(text),
      };
    });
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
