// Claude Code's session transcript: `<config dir>/projects/<cwd, each non-alphanumeric character as
// "-">/<session id>.jsonl`, one JSON object per line. Assistant lines carry `message.content` blocks
// (`text`, `tool_use`, `thinking`); one response is spread over several lines with the same
// `message.id`, each repeating `message.usage`. Lines of sub-agents are marked `isSidechain`.
// Checked against public recorded sessions (test/fixtures/transcripts/README.md names them).
import { jsonLines, obj, SummaryBuilder, type TranscriptSummary } from './types';

/** Reads a Claude Code transcript: the main conversation's last text, its tool calls, its tokens. */
export function readClaudeCode(text: string): TranscriptSummary {
  const b = new SummaryBuilder();
  // Usage is repeated on every line of one response: keep the last per message id, sum at the end.
  const usage = new Map<string, Record<string, unknown>>();
  for (const line of jsonLines(text, b)) {
    if (line.type !== 'assistant' || line.isSidechain === true) continue;
    const message = obj(line.message);
    if (message === undefined) continue;
    const content = Array.isArray(message.content) ? message.content : [];
    for (const block of content.map(obj)) {
      if (block?.type === 'text' && typeof block.text === 'string') b.message(block.text);
      else if (block?.type === 'tool_use') b.tool(block.name);
    }
    const u = obj(message.usage);
    if (u !== undefined) usage.set(typeof message.id === 'string' ? message.id : `line-${usage.size}`, u);
  }
  for (const u of usage.values()) {
    const input = [u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens]
      .filter((n): n is number => typeof n === 'number')
      .reduce((sum, n) => sum + n, 0);
    b.addTokens(input, u.output_tokens);
  }
  return b.build();
}
