// agent-clis-claude-code-tokens: o200k tokens of what the real Claude Code hands its model for each
// kind of harness result (git.status, a 200-line git.diff, a refusal, an approval-pending answer, and
// the listing and an executed commit beside them), measured on one session against the fake model,
// beside the tokens of the text content harness serve sent with each result. A measure of today's
// figures: no target.
import { writeResult } from '@harness/bench-utils';
import { tempDir } from '@harness/test-utils';
import { CLAUDE_CODE } from '../src/claude-code';
import { installPinned } from '../src/install';
import { RESULT_KINDS, repoBins, runScenario } from '../src/scenario';
import { formatTokenTable, HandedForm, tokenRows } from '../src/tokens';

const installed = await installPinned(CLAUDE_CODE);
if (!installed.ok) {
  process.stdout.write(`agent-clis-claude-code-tokens skipped: ${installed.reason}\n`);
} else {
  const dir = tempDir('harness-agent-clis-bench-');
  try {
    const s = await runScenario(repoBins(installed.bin), dir.path);
    if (s.claude.code !== 0) throw new Error(`claude exited ${s.claude.code}: ${s.claude.stderr}`);
    const rows = tokenRows(s.handed, RESULT_KINDS);
    process.stdout.write(`${formatTokenTable(rows)}\n`);
    const structured = rows.filter((r) => r.handed === HandedForm.structured);
    writeResult('agent-clis-claude-code-tokens', {
      unit: 'o200k tokens of the tool_result content Claude Code handed its model',
      client: `${CLAUDE_CODE.name}@${CLAUDE_CODE.version}`,
      rows,
      handedStructured: {
        handedTokens: structured.reduce((n, r) => n + r.handedTokens, 0),
        textContentTokens: structured.reduce((n, r) => n + r.textContentTokens, 0),
      },
      notes:
        'One claude -p session against the fake model (tooling/agent-clis). Claude Code hands a success as ' +
        "the result's structuredContent serialized as JSON, and an error (isError: true) as its text content; " +
        'textContentTokens is the text content harness serve sent beside each result (resultText). The ' +
        'approval-pending answer names the instance directory, a temp path here, so its count varies with that path.',
    });
  } finally {
    dir.cleanup();
  }
}
