// agent-clis-pi-tokens: what the real Pi hands its model for each harness result — nothing to
// measure, since Pi has no MCP client and cannot reach harness serve. The result records that, with
// the evidence read from the installed release, so the table of agent CLIs has a row for Pi.
import { writeResult } from '@harness/bench-utils';
import { PI, PI_SKIP_REASON, piMcpEvidence } from '../src/index';
import { benchWithPinned } from './pinned-bench';

await benchWithPinned('agent-clis-pi-tokens', PI, async (installed, home) => {
  const evidence = await piMcpEvidence(installed.dir, installed.bin, home);
  const noMcp = evidence.readmeLine !== undefined && evidence.helpMcpLines.length === 0;
  writeResult('agent-clis-pi-tokens', {
    unit: 'o200k tokens of the tool result Pi handed its model',
    client: `${PI.name}@${PI.version}`,
    measured: false,
    reason: noMcp ? PI_SKIP_REASON : 'Pi may now have an MCP client: write its session (tooling/agent-clis)',
    evidence,
    rows: [],
  });
});
