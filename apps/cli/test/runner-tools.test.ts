// Governed tools for runner runs (seed 004 item "tools"): a harness with `tools` gets, for each run,
// its own `harness serve` bound to the workspace and agent it names, through the agent CLI's MCP
// configuration. The agent is a FAKE (test/fakes/mcp-agent.mjs) that speaks MCP with the real SDK
// client to the real server its run was given; `harness trigger` runs it through the real bin.

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appDir, loomBin, runCli, sandbox, slowWorkspace } from './helpers';

const FAKE = join(appDir, 'test', 'fakes', 'mcp-agent.mjs');
let box: ReturnType<typeof sandbox>;
let records: string;
let binDir: string;

beforeEach(() => {
  box = sandbox();
  records = join(box.root, 'records');
  binDir = join(box.root, 'bin');
  mkdirSync(records, { recursive: true });
  mkdirSync(binDir, { recursive: true });
  for (const name of ['claude', 'codex', 'agent']) symlinkSync(FAKE, join(binDir, name));
  chmodSync(FAKE, 0o755);
});
afterEach(() => box.cleanup());

function runnerFile(harness: string): string {
  const file = join(box.root, 'runner.yaml');
  copyFileSync(slowWorkspace, join(box.root, 'workspace.yaml'));
  writeFileSync(
    file,
    `harnesses:
${harness}
    tools: { workspace: workspace.yaml, agent: demo }
    env: { FAKE_RECORD_DIR: ${records} }
`,
  );
  return file;
}

async function trigger(file: string, id: string) {
  const r = await runCli(['trigger', id, '--config', file, '--instance', box.instance, '--json'], {
    home: box.home,
    env: { PATH: `${binDir}:${process.env.PATH}` },
  });
  const run = JSON.parse(r.stdout);
  const record = JSON.parse(readFileSync(join(records, `${run.id}.json`), 'utf8'));
  return { run, record };
}

describe('governed tools for a run', () => {
  it('gives a claude-code run its own harness serve through --mcp-config, which lists and runs the granted commands', async () => {
    const file = runnerFile('  - id: reviewer\n    kind: claude-code\n    prompt: Review the change');
    const { run, record } = await trigger(file, 'reviewer');
    expect(record.error).toBeUndefined();
    expect(run.status).toBe('succeeded');
    // Claude Code's argv: -p, the MCP flags (a flag after the variadic lists), the prompt last.
    expect(record.argv.slice(0, 2)).toEqual(['-p', '--mcp-config']);
    expect(record.argv.slice(3)).toEqual([
      '--allowedTools',
      'mcp__harness',
      '--strict-mcp-config',
      'Review the change',
    ]);
    expect(record.tools).toContain('run_read_command');
    expect(record.listing).toContain('echo.argv(value: string)');
    expect(record.call).toEqual({ isError: false, text: 'from-the-agent\n[echo.argv: ok, exit 0]' });
    // The server was bound to this run: its job id, and a direct-command slot for a run started by hand.
    expect(record.server.args).toEqual(
      expect.arrayContaining([
        'serve',
        '--agent',
        'demo',
        '--job-id',
        run.id,
        '--prompt-slot',
        'direct-command',
      ]),
    );
    // The MCP configuration file lived only as long as the run.
    expect(existsSync(record.argv[2])).toBe(false);
  });

  it('gives a codex run the same server through -c mcp_servers.harness.*', async () => {
    const file = runnerFile('  - id: fixer\n    kind: codex\n    prompt: Fix it');
    const { run, record } = await trigger(file, 'fixer');
    expect(run.status).toBe('succeeded');
    expect(record.argv[0]).toBe('exec');
    expect(record.argv[1]).toBe('-c');
    expect(record.argv[2]).toMatch(/^mcp_servers\.harness\.command="/);
    expect(record.argv.at(-1)).toBe('Fix it');
    expect(record.call.text).toBe('from-the-agent\n[echo.argv: ok, exit 0]');
  });

  it('gives a command harness the configuration file in HARNESS_MCP_CONFIG', async () => {
    const file = runnerFile(`  - id: loop\n    kind: command\n    argv: [${join(binDir, 'agent')}]`);
    const { run, record } = await trigger(file, 'loop');
    expect(run.status).toBe('succeeded');
    expect(record.tools).toContain('list_commands');
    expect(record.call.isError).toBe(false);
  });

  it('records each call in the audit of the harness tools instance, under the run id as job', async () => {
    const file = runnerFile('  - id: reviewer\n    kind: claude-code\n    prompt: Review the change');
    const { run } = await trigger(file, 'reviewer');
    const toolsInstance = join(box.instance, 'runner', 'tools', 'reviewer');
    expect(readdirSync(toolsInstance).length).toBeGreaterThan(0);
    const audit = execFileSync(
      process.execPath,
      [loomBin, 'audit', 'tail', '--json', '--instance', toolsInstance],
      {
        encoding: 'utf8',
      },
    );
    const rows: Record<string, unknown>[] = JSON.parse(audit).events;
    const ranRow = rows.find((r) => r.command === 'echo.argv' && r.phase === 'run');
    expect(ranRow).toMatchObject({ job: run.id, outcome: 'ok' });
  });
});
