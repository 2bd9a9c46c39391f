// Codex's rollout file: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (default
// `~/.codex`), lines `{ timestamp, type, payload }`. `session_meta` names the working directory;
// `response_item` holds messages (`role: assistant`, `output_text` parts) and tool calls
// (`function_call`, `custom_tool_call`, `local_shell_call`, `web_search_call`); `event_msg`
// `token_count` carries running totals and `task_complete` the last agent message.
// Checked against public recorded rollouts (test/fixtures/transcripts/README.md names them).
import { jsonLines, obj, SummaryBuilder, type TranscriptSummary } from './types';

const TOOL_ITEMS: Readonly<Record<string, string | undefined>> = {
  function_call: undefined,
  custom_tool_call: undefined,
  local_shell_call: 'shell',
  web_search_call: 'web_search',
};

/** The working directory a rollout's `session_meta` names, if any (to tell runs apart). */
export function codexSessionCwd(text: string): string | undefined {
  const b = new SummaryBuilder();
  for (const line of jsonLines(text.slice(0, 256 * 1024), b)) {
    if (line.type === 'session_meta') {
      const cwd = obj(line.payload)?.cwd;
      return typeof cwd === 'string' ? cwd : undefined;
    }
  }
  return undefined;
}

/** Reads a Codex rollout: the last agent message, the tool calls, the token totals. */
export function readCodex(text: string): TranscriptSummary {
  const b = new SummaryBuilder();
  for (const line of jsonLines(text, b)) {
    const payload = obj(line.payload);
    if (payload === undefined) continue;
    const kind = payload.type;
    if (line.type === 'response_item') {
      if (kind === 'message' && payload.role === 'assistant' && Array.isArray(payload.content)) {
        for (const part of payload.content.map(obj)) {
          if (part?.type === 'output_text' && typeof part.text === 'string') b.message(part.text);
        }
      } else if (typeof kind === 'string' && kind in TOOL_ITEMS) {
        b.tool(TOOL_ITEMS[kind] ?? payload.name);
      }
    } else if (line.type === 'event_msg') {
      if (kind === 'token_count') {
        const total = obj(obj(payload.info)?.total_token_usage);
        if (total !== undefined) b.setTokens(total.input_tokens, total.output_tokens);
      } else if (kind === 'task_complete' && typeof payload.last_agent_message === 'string') {
        b.message(payload.last_agent_message);
      }
    }
  }
  return b.build();
}
