// What observation reads out of an agent's own transcript (seed 004, "Records and observation").

/** What one transcript says about its run. */
export interface TranscriptSummary {
  /** The agent's last message to the person (its final answer), cut at {@link FINAL_MESSAGE_MAX} characters. */
  readonly final_message: string | null;
  /** How many tool calls the agent made. */
  readonly tool_calls: number;
  /** Tool calls by tool name (at most {@link TOOL_NAMES_MAX} names; the rest counted under `…`). */
  readonly tools: Readonly<Record<string, number>>;
  /** Tokens the transcript reports, when it reports them. */
  readonly tokens: { readonly input: number; readonly output: number } | null;
  /** Lines that were not JSON (a transcript cut by a crash, say): skipped, counted. */
  readonly unreadable_lines: number;
}

/** A run's observation, as the run record keeps it. */
export type Observation =
  | ({ readonly status: 'read'; readonly source: string; readonly file: string } & TranscriptSummary)
  | { readonly status: 'not_found'; readonly source: string; readonly root: string; readonly message: string }
  | { readonly status: 'unavailable'; readonly source: string; readonly message: string };

export const FINAL_MESSAGE_MAX = 4096;
export const TOOL_NAMES_MAX = 64;

/** Counts tool calls by name and keeps the last message, with the bounds above. */
export class SummaryBuilder {
  private finalMessage: string | null = null;
  private calls = 0;
  private readonly byName = new Map<string, number>();
  private input = 0;
  private output = 0;
  private sawTokens = false;
  unreadable = 0;

  message(text: string): void {
    const trimmed = text.trim();
    if (trimmed !== '') this.finalMessage = trimmed;
  }

  tool(name: unknown): void {
    this.calls++;
    const key = typeof name === 'string' && name !== '' ? name : '(unnamed)';
    const bucket = this.byName.has(key) || this.byName.size < TOOL_NAMES_MAX ? key : '…';
    this.byName.set(bucket, (this.byName.get(bucket) ?? 0) + 1);
  }

  /** Adds tokens of one model response. */
  addTokens(input: unknown, output: unknown): void {
    if (typeof input === 'number') this.input += input;
    if (typeof output === 'number') this.output += output;
    if (typeof input === 'number' || typeof output === 'number') this.sawTokens = true;
  }

  /** Replaces the totals (a format that reports running totals). */
  setTokens(input: unknown, output: unknown): void {
    this.input = 0;
    this.output = 0;
    this.addTokens(input, output);
  }

  build(): TranscriptSummary {
    const message =
      this.finalMessage !== null && this.finalMessage.length > FINAL_MESSAGE_MAX
        ? `${this.finalMessage.slice(0, FINAL_MESSAGE_MAX)}…`
        : this.finalMessage;
    return {
      final_message: message,
      tool_calls: this.calls,
      tools: Object.fromEntries(this.byName),
      tokens: this.sawTokens ? { input: this.input, output: this.output } : null,
      unreadable_lines: this.unreadable,
    };
  }
}

/** The JSON objects of a JSONL text; a line that is not a JSON object is counted in `builder`. */
export function* jsonLines(text: string, builder: SummaryBuilder): Generator<Record<string, unknown>> {
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      builder.unreadable++;
      continue;
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      yield value as Record<string, unknown>;
    else builder.unreadable++;
  }
}

/** `value` as an object, or `undefined`. */
export function obj(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
