// A project whose tests fail, run through the standard node pack for real: what a model reads of
// `node.test` over `harness serve` (the text, `isError`, `structuredContent`) and what a script
// reads of `harness call` (its JSON and its exit code), and the audit event of each run, all say the
// tests failed, with the report.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tailAudit } from '@harness/host';
import { needs } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectStdio, runCli, sandbox } from './helpers';

/** A test script that passes one check, fails another, and exits 1 as test runners do. */
const TEST_SCRIPT = "console.log('ok 1 - adds'); console.log('not ok 2 - multiplies'); process.exit(1);\n";

needs('node', 'npm', 'sh').describe('a failing test suite through the standard node pack', () => {
  const box = sandbox();
  const project = join(box.root, 'project');
  const workspace = join(project, '.harness', 'workspace.yaml');
  let session: Awaited<ReturnType<typeof connectStdio>>;

  beforeAll(async () => {
    mkdirSync(join(project, '.harness'), { recursive: true });
    mkdirSync(box.home, { recursive: true });
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'failing', version: '1.0.0', private: true, scripts: { test: 'node test.js' } }),
    );
    writeFileSync(join(project, 'test.js'), TEST_SCRIPT);
    writeFileSync(
      workspace,
      [
        'version: 1',
        'command_packs:',
        '  - standard: node',
        '    cwd: ..',
        '    permission_overrides: { test: open }',
        '    input_overrides:',
        '      run: { script: { enum: [test] } }',
        '      exec_bin: { bin: { enum: [tsc] } }',
        'agents:',
        '  - id: coder',
        '    grants: [node.test]',
        '',
      ].join('\n'),
    );
    session = await connectStdio(
      ['--workspace', workspace, '--instance', box.instance, '--agent', 'coder'],
      box.home,
    );
  }, 60_000);
  afterAll(async () => {
    await session?.close();
    box.cleanup();
  });

  it('reads as tests failed to a model: the report, then the status line, an error result', async () => {
    const res = await session.client.callTool({
      name: 'run_command',
      arguments: { command: 'node.test', args: {} },
    });
    const text = (res.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');
    expect(text).toBe(
      '\n> failing@1.0.0 test\n> node test.js\n\nok 1 - adds\nnot ok 2 - multiplies\n[node.test: tests failed, exit 1]',
    );
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({
      ok: false,
      code: 'failed',
      reason: 'tests_failed',
      exit: 1,
      output: expect.stringContaining('not ok 2 - multiplies'),
    });
  });

  it('exits 1 from harness call, its JSON naming the failure and keeping the report, its status line on stderr', async () => {
    await session.close();
    const r = await runCli(
      [
        'call',
        'run_command',
        '{"command":"node.test","args":{}}',
        '--workspace',
        workspace,
        '--instance',
        box.instance,
        '--agent',
        'coder',
      ],
      { home: box.home },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('[node.test: tests failed, exit 1]');
    const result = JSON.parse(r.stdout) as {
      status: string;
      outcome: { ok: boolean; code: string; reason: string };
      entry: { value: { status: string; exitCode: number; stdout: string } };
    };
    expect([result.status, result.outcome.ok, result.outcome.code, result.outcome.reason]).toEqual([
      'executed',
      false,
      'failed',
      'tests_failed',
    ]);
    expect(result.entry.value).toMatchObject({
      status: 'tests_failed',
      exitCode: 1,
      stdout: expect.stringContaining('ok 1 - adds\nnot ok 2 - multiplies\n'),
    });
  });

  it('records each run in the audit as failed, with tests_failed as its reason', async () => {
    const runs = (await tailAudit(box.instance, 100)).filter(
      (e) => e.command === 'node.test' && e.phase === 'run',
    );
    expect(runs.map((e) => [e.outcome, e.code, e.reason])).toEqual([
      ['failed', 'failed', 'tests_failed'],
      ['failed', 'failed', 'tests_failed'],
    ]);
  });
});
