// Pi cannot drive `harness serve`: it has no MCP client. The first test pins that reason against the
// installed release (when a release gains one, it fails, and the session test below is to be
// written); the second is that session, skipped with the reason.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { installPinned } from '../src/install';
import { PI, PI_SKIP_REASON, piMcpEvidence } from '../src/pi';
import { repoBins } from '../src/scenario';

const installed = await installPinned(PI);
const skip = installed.ok ? undefined : `Pi is not available: ${installed.reason}`;
if (skip) console.warn(`pi tests skipped: ${skip}`);

/** `harness init --client <client> --dry-run` in `cwd`: its exit code and stderr. */
function initDryRun(client: string, cwd: string, home: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1' };
    const args = [repoBins('').harness, 'init', '--client', client, '--dry-run'];
    execFile(process.execPath, args, { cwd, env, timeout: 60_000 }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr });
    });
  });
}

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
    const init = await initDryRun('pi', dir.path, join(dir.path, 'home'));
    expect(init.code).toBe(2);
    expect(init.stderr).toBe(
      "harness: --client: unknown client 'pi'; expected one of claude-code, codex, cursor, vscode, gemini, claude-desktop\n",
    );
  });

  it.skip(`drives harness serve against the fake model: skipped, ${PI_SKIP_REASON}`, () => {});
});
