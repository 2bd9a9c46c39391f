// Pi's session file: `<agent dir>/sessions/--<cwd, leading "/" dropped, "/", "\" and ":" as "-">--/
// <time>_<id>.jsonl` (agent dir: `$PI_CODING_AGENT_DIR`, default `~/.pi/agent`). A `session` header
// names the cwd; `message` entries carry `message.role` (`user`, `assistant`, `toolResult`),
// `content` parts (`text`, `toolCall` with `name`, `thinking`) and, on assistant messages, `usage`
// (`input`, `output`, `cacheRead`, `cacheWrite`). Checked against the session writer of
// `@mariozechner/pi-coding-agent` 0.73.1 and a session that binary wrote (the fixture's README).
import { jsonLines, obj, SummaryBuilder, type TranscriptSummary } from './types';

/** The session directory Pi uses for runs in `cwd` under `agentDir`. */
export function piSessionDir(agentDir: string, cwd: string): string {
  return `${agentDir}/sessions/--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

/** Reads a Pi session: the last assistant text, the tool calls, the summed tokens. */
export function readPi(text: string): TranscriptSummary {
  const b = new SummaryBuilder();
  for (const line of jsonLines(text, b)) {
    if (line.type !== 'message') continue;
    const message = obj(line.message);
    if (message?.role !== 'assistant') continue;
    const content = Array.isArray(message.content) ? message.content : [];
    for (const part of content.map(obj)) {
      if (part?.type === 'text' && typeof part.text === 'string') b.message(part.text);
      else if (part?.type === 'toolCall') b.tool(part.name);
    }
    const u = obj(message.usage);
    if (u !== undefined) {
      const input = [u.input, u.cacheRead, u.cacheWrite]
        .filter((n): n is number => typeof n === 'number')
        .reduce((sum, n) => sum + n, 0);
      b.addTokens(input, u.output);
    }
  }
  return b.build();
}
