// o200k tokens of what Codex handed its model for each tool result. Codex hands an MCP result as one
// string: a line with the call's wall time, `Output:`, then the result's structuredContent
// serialized as JSON when the result has one (which every `harness serve` result does: a call tool's
// lean reply, a listing's outcome), else its content blocks; the text content never reaches the model
// (openai/codex, codex-rs/protocol/src/models.rs: `FunctionCallOutputPayload::from(&CallToolResult)`).
import type { ResponsesHandedResult } from './fake-openai';
import { BASELINE_TOKENS, measureHanded, measureRows, o200k, type TokenRow } from './tokens';

/** The header Codex puts before a tool's output: its wall time in seconds, four decimals. */
const HEADER = /^Wall time: (\d+\.\d{4}) seconds\nOutput:\n/;

/** A handed output cut in two: Codex's header line and the body after it; undefined without the header. */
export function codexOutputParts(text: string): { wallTime: string; body: string } | undefined {
  const header = HEADER.exec(text);
  if (!header) return undefined;
  return { wallTime: header[1] ?? '', body: text.slice(header[0].length) };
}

/** One tool result's measure, with the tokens of the JSON body apart from Codex's header. */
export interface CodexTokenRow extends TokenRow {
  /** Tokens of the body alone: the structuredContent JSON, without Codex's header. */
  bodyTokens: number;
}

/**
 * Measures each handed result; `kinds` names the rows, by plan step. `isError` is false on every
 * row: a `function_call_output` item has no error mark, so nothing but the JSON's own fields tells
 * the model that a call was refused.
 */
export function codexTokenRows(
  handed: readonly ResponsesHandedResult[],
  kinds: ReadonlyMap<number, string>,
): CodexTokenRow[] {
  return measureRows(handed, kinds, (h, kind) => {
    const body = codexOutputParts(h.text)?.body ?? h.text;
    return {
      ...measureHanded(h, kind, { body, isError: false }, BASELINE_TOKENS.codex),
      bodyTokens: o200k(body),
    };
  });
}
