// agent-clis-codex-tokens: o200k tokens of what the real Codex CLI hands its model for each kind of
// harness result (git.status, a 200-line git.diff, a refusal, an approval-pending answer, and the
// listing and an executed commit beside them), measured on one `codex exec` session against the fake
// model, beside the tokens of the text content harness serve sent with each result. A measure of
// today's figures: no target.
import { CODEX, codexTokenRows, RESULT_KINDS, repoBins, runCodexScenario } from '../src/index';
import { runTokenBench } from './pinned-bench';

await runTokenBench('agent-clis-codex-tokens', CODEX, {
  session: async (codex, tmp) => {
    const s = await runCodexScenario({ ...repoBins(), codex }, tmp);
    if (s.codex.code !== 0) throw new Error(`codex exited ${s.codex.code}: ${s.codex.stderr}`);
    return codexTokenRows(s.handed, RESULT_KINDS);
  },
  unit: 'o200k tokens of the function_call_output Codex handed its model',
  totals: ['handedTokens', 'bodyTokens', 'textContentTokens'],
  notes:
    'One codex exec session against the fake model (tooling/agent-clis), serve started with --approvals ' +
    'queue. Codex hands every MCP result, a refusal or a pending approval included, as one string: ' +
    '"Wall time: <s> seconds", "Output:", then the structuredContent serialized as JSON (bodyTokens), with ' +
    'no error mark; the text content serve sent beside it (textContentTokens, its resultText) never reaches ' +
    'the model. The wall time and the approval-pending answer (which names the instance directory, a temp ' +
    'path here) make those counts vary by a token or two from run to run.',
});
