// A task session's transcript: what the person asked, the turn's context message, what the model
// said and called, and what each tool answered. Every item carries the turn it belongs to, so a
// turn's results are read from that turn's own items and never from history.

/** One tool call the model made, as it named it. */
export interface ToolCall {
  /** The model's id for the call; the tool's answer names it back. */
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
}

/** One item of a transcript. */
export type TranscriptItem =
  | { turn: string; role: 'user'; content: string }
  /** The console's context message for a turn (its origin loom); the model reads it as a user message. */
  | { turn: string; role: 'context'; content: string }
  | { turn: string; role: 'assistant'; content: string; toolCalls: ToolCall[] }
  | {
      turn: string;
      role: 'tool';
      toolCallId: string;
      name: string;
      /** The text the model read. */
      content: string;
      /** The tool's structured result, as the engine got it: host-side evidence. */
      result: Record<string, unknown>;
    };

/** A call paired with its answer, when the pairing proves which call the answer belongs to. */
export interface PairedObservation {
  call: ToolCall;
  args: Record<string, unknown>;
  result: Record<string, unknown>;
}

/**
 * The tool observations of one turn that pair uniquely with a call of that turn (seed 001: "Tool-call
 * IDs must uniquely pair with preceding current-turn calls"). An answer proves nothing when
 *  - no call of the turn precedes it with its id (missing),
 *  - the only call with its id belongs to an earlier turn (historical),
 *  - more than one call, or more than one answer, in the whole transcript carries its id (ambiguous),
 *  - its call names another tool, or the call's arguments are not a JSON object (malformed).
 */
export function pairedObservations(items: readonly TranscriptItem[], turn: string): PairedObservation[] {
  const calls = new Map<string, { call: ToolCall; turn: string; at: number }[]>();
  const answers = new Map<string, number>();
  items.forEach((item, at) => {
    if (item.role === 'assistant') {
      for (const call of item.toolCalls) {
        const list = calls.get(call.id) ?? [];
        list.push({ call, turn: item.turn, at });
        calls.set(call.id, list);
      }
    } else if (item.role === 'tool') {
      answers.set(item.toolCallId, (answers.get(item.toolCallId) ?? 0) + 1);
    }
  });
  const paired: PairedObservation[] = [];
  items.forEach((item, at) => {
    if (item.role !== 'tool' || item.turn !== turn) return;
    const candidates = calls.get(item.toolCallId) ?? [];
    if (candidates.length !== 1 || answers.get(item.toolCallId) !== 1) return;
    const [only] = candidates;
    if (only === undefined || only.turn !== turn || only.at >= at) return;
    if (only.call.name !== item.name) return;
    const args = parseObject(only.call.arguments);
    if (args === undefined) return;
    paired.push({ call: only.call, args, result: item.result });
  });
  return paired;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
