// agent-clis-codex-tokens: o200k tokens of what the real Codex CLI hands its model for each kind of
// harness result (git.status, a 200-line git.diff, a refusal, an approval-pending answer, and the
// listing and an executed commit beside them), measured on one `codex exec` session against the fake
// model, beside the tokens of the text content harness serve sent with each result. A measure of
// today's figures: no target.
import { writeResult } from '@harness/bench-utils';
import { tempDir } from '@harness/test-utils';
import { CODEX } from '../src/codex';
import { runCodexScenario } from '../src/codex-scenario';
import { codexTokenRows } from '../src/codex-tokens';
import { installPinned } from '../src/install';
import { RESULT_KINDS, repoBins } from '../src/scenario';
import { formatTokenTable, HandedForm } from '../src/tokens';

const installed = await installPinned(CODEX);
if (!installed.ok) {
  process.stdout.write(`agent-clis-codex-tokens skipped: ${installed.reason}\n`);
} else {
  const dir = tempDir('harness-agent-clis-bench-');
  try {
    const { harness, loom } = repoBins('');
    const s = await runCodexScenario({ codex: installed.bin, harness, loom }, dir.path);
    if (s.codex.code !== 0) throw new Error(`codex exited ${s.codex.code}: ${s.codex.stderr}`);
    const rows = codexTokenRows(s.handed, RESULT_KINDS);
    process.stdout.write(`${formatTokenTable(rows)}\n`);
    const structured = rows.filter((r) => r.handed === HandedForm.structured);
    const sum = (key: 'handedTokens' | 'bodyTokens' | 'textContentTokens') =>
      structured.reduce((n, r) => n + r[key], 0);
    writeResult('agent-clis-codex-tokens', {
      unit: 'o200k tokens of the function_call_output Codex handed its model',
      client: `${CODEX.name}@${CODEX.version}`,
      rows,
      handedStructured: {
        handedTokens: sum('handedTokens'),
        bodyTokens: sum('bodyTokens'),
        textContentTokens: sum('textContentTokens'),
      },
      notes:
        'One codex exec session against the fake model (tooling/agent-clis), serve started with --approvals ' +
        'queue. Codex hands every MCP result, a refusal or a pending approval included, as one string: ' +
        '"Wall time: <s> seconds", "Output:", then the structuredContent serialized as JSON (bodyTokens), with ' +
        'no error mark; the text content serve sent beside it (textContentTokens, its resultText) never reaches ' +
        'the model. The wall time and the approval-pending answer (which names the instance directory, a temp ' +
        'path here) make those counts vary by a token or two from run to run.',
    });
  } finally {
    dir.cleanup();
  }
}
