// Pi cannot drive `harness serve`: it has no MCP client. The first test pins that reason against the
// installed release (when a release gains one, it fails, and the session test below is to be
// written); the second is that session, skipped with the reason.
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { installPinned, PI, PI_SKIP_REASON, piMcpEvidence, repoBins, runNode } from '../src/index';

const installed = await installPinned(PI);
const skip = installed.ok ? undefined : `Pi is not available: ${installed.reason}`;
if (skip) console.warn(`pi tests skipped: ${skip}`);

describe.skipIf(skip !== undefined)(`Pi ${PI.version} and harness serve`, () => {
  const dir = tempDir('harness-agent-clis-pi-');
  afterAll(() => dir.cleanup());

  it('offers no MCP client: its README says "No MCP.", its help names no MCP option, init knows no pi client', async () => {
    if (!installed.ok) throw new Error('unreachable: the block is skipped without Pi');
    const evidence = await piMcpEvidence(installed.dir, installed.bin, join(dir.path, 'home'));
    expect(evidence).toEqual({
      readmeLine: expect.stringMatching(
        /^\*\*No MCP\.\*\* Build CLI tools with READMEs \(see \[Skills\]\(#skills\)\), or build an extension that adds MCP support\./,
      ),
      helpMcpLines: [],
      helpHasExtension: true,
    });
    const init = await runNode(repoBins().harness, ['init', '--client', 'pi', '--dry-run'], {
      home: join(dir.path, 'home'),
      cwd: dir.path,
    });
    expect(init.code).toBe(2);
    expect(init.stderr).toBe(
      "harness: --client: unknown client 'pi'; expected one of claude-code, codex, cursor, vscode, gemini, claude-desktop\n",
    );
  });

  it.skip(`drives harness serve against the fake model: skipped, ${PI_SKIP_REASON}`, () => {});
});
