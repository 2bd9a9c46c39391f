// o200k tokens of what an agent CLI handed its model for each tool result, beside what the same
// client handed for the same result before call tools answered with their lean reply (the baseline
// below), and beside the tokens of the command's own output in it (the floor no form goes under).
import { RunCommandReply, ToolOutcome } from '@harness/commands';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { MessagesHandedResult } from './fake-anthropic';
import type { HandedResult } from './fake-server';

/** Which part of the MCP tool result the client handed its model. */
export const HandedForm = {
  /** A call tool's `structuredContent`, its lean reply, serialized as JSON. */
  structured: 'structuredContent JSON',
  /** The result's text content. */
  text: 'text content',
  /** JSON that is both: a listing's text content is its structured result's JSON. */
  same: 'JSON, the text content too',
} as const;
export type HandedForm = (typeof HandedForm)[keyof typeof HandedForm];

/**
 * What each client handed its model for each row before call tools answered with a lean reply (the
 * whole outcome as structuredContent, git.status in porcelain v2), measured on the same plan with the
 * same client releases: Claude Code 2.1.197 and Codex 0.171.0, 2026-12-02.
 */
export const BASELINE_TOKENS: Readonly<Record<'claude-code' | 'codex', Readonly<Record<string, number>>>> = {
  'claude-code': {
    list_commands: 1408,
    'git.status': 276,
    'git.diff, 200 changed lines': 1150,
    'refusal: git.push, not granted': 40,
    'approval pending: git.commit': 109,
    'git.commit, approved': 129,
  },
  codex: {
    list_commands: 1420,
    'git.status': 278,
    'git.diff, 200 changed lines': 1162,
    'refusal: git.push, not granted': 69,
    'approval pending: git.commit': 236,
    'git.commit, approved': 141,
  },
};

/** One tool result's measure. */
export interface TokenRow {
  kind: string;
  tool: string;
  isError: boolean;
  handed: HandedForm;
  handedBytes: number;
  handedTokens: number;
  /** What the client handed for this row before the lean reply ({@link BASELINE_TOKENS}). */
  baselineTokens: number;
  /** handedTokens / baselineTokens, to two decimals. */
  ratio: number;
  /** Tokens of the command's own output in the reply: the floor a result that shows it cannot go under. */
  outputTokens: number;
}

/** The o200k token count of a text. */
export function o200k(text: string): number {
  return encode(text).length;
}

/** What a handed text is the JSON of: a call tool's reply, another tool's outcome, or neither. */
export type HandedJson =
  | { kind: 'reply'; reply: RunCommandReply }
  | { kind: 'outcome'; outcome: ToolOutcome }
  | undefined;

/** Reads a handed text as the JSON of a call tool's reply or of another tool's outcome. */
export function handedJson(text: string): HandedJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const reply = RunCommandReply.safeParse(value);
  if (reply.success) return { kind: 'reply', reply: reply.data };
  return ToolOutcome.safeParse(value).success
    ? { kind: 'outcome', outcome: value as ToolOutcome }
    : undefined;
}

/** The command's output a reply carries, as text; empty when it carries none. */
function outputOf(json: HandedJson): string {
  if (json?.kind !== 'reply' || 'results' in json.reply) return '';
  const output = json.reply.output;
  return output === undefined ? '' : typeof output === 'string' ? output : JSON.stringify(output);
}

/**
 * Measures one handed result as the row `kind`: `body` is the part of its text that may be JSON
 * (all of it, unless the client put something before it), `isError` the client's mark, `baseline`
 * the client's row of {@link BASELINE_TOKENS}.
 */
export function measureHanded(
  h: HandedResult,
  kind: string,
  read: { body: string; isError: boolean },
  baseline: Readonly<Record<string, number>>,
): TokenRow {
  const json = handedJson(read.body);
  const handedTokens = o200k(h.text);
  const baselineTokens = baseline[kind] ?? Number.NaN;
  const output = outputOf(json);
  return {
    kind,
    tool: h.name,
    isError: read.isError,
    handed:
      json === undefined ? HandedForm.text : json.kind === 'reply' ? HandedForm.structured : HandedForm.same,
    handedBytes: Buffer.byteLength(h.text),
    handedTokens,
    baselineTokens,
    ratio: Math.round((handedTokens / baselineTokens) * 100) / 100,
    outputTokens: output === '' ? 0 : o200k(output),
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
    measureHanded(
      h,
      kind,
      { body: h.text, isError: h.block.is_error === true },
      BASELINE_TOKENS['claude-code'],
    ),
  );
}

/** The rows as a plain-text table a person reads in a test's output. */
export function formatTokenTable(rows: readonly TokenRow[]): string {
  const head = ['result', 'handed to the model', 'tokens', 'before', 'ratio', 'output alone'];
  const body = rows.map((r) => [
    r.kind,
    r.handed,
    String(r.handedTokens),
    String(r.baselineTokens),
    r.ratio.toFixed(2),
    String(r.outputTokens),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
