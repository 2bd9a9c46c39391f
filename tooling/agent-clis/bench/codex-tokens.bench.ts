// agent-clis-codex-tokens: o200k tokens of what the real Codex CLI hands its model for each kind of
// harness result (git.status, a 200-line git.diff, a refusal, an approval-pending answer, and the
// listing and an executed commit beside them), measured on one `codex exec` session against the fake
// model, beside what Codex handed for the same result before call tools answered with their lean
// reply. Target: at most 0.6 of that for git.status, the diff, the refusal and the pending approval;
// the diff's floor is its own patch (`outputTokens`).
import { CODEX, codexTokenRows, RESULT_KINDS, repoBins, runCodexScenario } from '../src/index';
import { runTokenBench } from './pinned-bench';

await runTokenBench('agent-clis-codex-tokens', CODEX, {
  session: async (codex, tmp) => {
    const s = await runCodexScenario({ ...repoBins(), codex }, tmp);
    if (s.codex.code !== 0) throw new Error(`codex exited ${s.codex.code}: ${s.codex.stderr}`);
    return codexTokenRows(s.handed, RESULT_KINDS);
  },
  unit: 'o200k tokens of the function_call_output Codex handed its model',
  totals: ['handedTokens', 'bodyTokens', 'baselineTokens'],
  notes:
    'One codex exec session against the fake model (tooling/agent-clis), serve started with --approvals ' +
    'queue. Codex hands every MCP result, a refusal or a pending approval included, as one string: ' +
    '"Wall time: <s> seconds", "Output:", then the structuredContent serialized as JSON (bodyTokens), with ' +
    'no error mark: for a call tool the lean reply ({ ok, code, exit, output, … }). baselineTokens is what ' +
    'Codex handed for the same row before that (the whole outcome, git.status in porcelain v2); ' +
    'outputTokens the command output alone, the floor. The wall time and the approval-pending answer (which names the instance directory, a temp ' +
    'path here) make those counts vary by a token or two from run to run.',
});
