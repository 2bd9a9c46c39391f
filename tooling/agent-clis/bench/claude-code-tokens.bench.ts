// agent-clis-claude-code-tokens: o200k tokens of what the real Claude Code hands its model for each
// kind of harness result (git.status, a 200-line git.diff, a refusal, an approval-pending answer, and
// the listing and an executed commit beside them), measured on one session against the fake model,
// beside what Claude Code handed for the same result before call tools answered with their lean
// reply. Target: at most 0.6 of that for git.status, the diff, the refusal and the pending approval;
// the diff's floor is its own patch (`outputTokens`).
import { CLAUDE_CODE, RESULT_KINDS, repoBins, runClaudeCodeScenario, tokenRows } from '../src/index';
import { runTokenBench } from './pinned-bench';

await runTokenBench('agent-clis-claude-code-tokens', CLAUDE_CODE, {
  session: async (claude, tmp) => {
    const s = await runClaudeCodeScenario({ ...repoBins(), claude }, tmp);
    if (s.claude.code !== 0) throw new Error(`claude exited ${s.claude.code}: ${s.claude.stderr}`);
    return tokenRows(s.handed, RESULT_KINDS);
  },
  unit: 'o200k tokens of the tool_result content Claude Code handed its model',
  totals: ['handedTokens', 'baselineTokens'],
  notes:
    'One claude -p session against the fake model (tooling/agent-clis). Claude Code hands a success as ' +
    "the result's structuredContent serialized as JSON (for a call tool its lean reply), and an error " +
    '(isError: true) as its text content; baselineTokens is what it handed for the same row before the lean ' +
    'reply (the whole outcome, git.status in porcelain v2); outputTokens the command output alone. The ' +
    'approval-pending answer names the instance directory, a temp path here, so its count varies with that path.',
});
