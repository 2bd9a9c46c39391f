// agent-clis-claude-code-tokens: o200k tokens of what the real Claude Code hands its model for each
// kind of harness result (git.status, a 200-line git.diff, a refusal, an approval-pending answer, and
// the listing and an executed commit beside them), measured on one session against the fake model,
// beside the tokens of the text content harness serve sent with each result. A measure of today's
// figures: no target.
import { CLAUDE_CODE, RESULT_KINDS, repoBins, runClaudeCodeScenario, tokenRows } from '../src/index';
import { runTokenBench } from './pinned-bench';

await runTokenBench('agent-clis-claude-code-tokens', CLAUDE_CODE, {
  session: async (claude, tmp) => {
    const s = await runClaudeCodeScenario({ ...repoBins(), claude }, tmp);
    if (s.claude.code !== 0) throw new Error(`claude exited ${s.claude.code}: ${s.claude.stderr}`);
    return tokenRows(s.handed, RESULT_KINDS);
  },
  unit: 'o200k tokens of the tool_result content Claude Code handed its model',
  totals: ['handedTokens', 'textContentTokens'],
  notes:
    'One claude -p session against the fake model (tooling/agent-clis). Claude Code hands a success as ' +
    "the result's structuredContent serialized as JSON, and an error (isError: true) as its text content; " +
    'textContentTokens is the text content harness serve sent beside each result (resultText). The ' +
    'approval-pending answer names the instance directory, a temp path here, so its count varies with that path.',
});
