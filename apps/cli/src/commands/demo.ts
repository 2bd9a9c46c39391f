// `harness demo`: starts `harness serve` on a fresh instance over a copy of the example workspace,
// connects the real MCP SDK client to it over stdio, and walks the whole path: the catalog, an
// unattended read, a write held for approval, a readonly refusal, the injection case and a loom
// compose with its idempotent retry. Exit 0 only if every step behaved as expected.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { version } from '../../package.json';
import { parse } from '../args';
import { bundledLoomCli, exampleWorkspace } from '../embedded';
import { bold, dim, green, out, red, spinner } from '../output';
import { selfArgv } from '../self';

const help = `Usage: harness demo [--keep]

Starts harness serve on a fresh instance directory (in the system temp directory) over a copy of
the example workspace, connects a real MCP client over stdio and prints a transcript of each step.
Exit 0 only if every step behaved as expected. --keep leaves the instance directory in place.
Where jq is absent, the jq steps run over packs whose binaries every machine has, and the
transcript says so.`;

type Result = Record<string, unknown>;
interface Step {
  title: string;
  ok: boolean;
  why?: string;
}

const get = (value: unknown, ...path: (string | number)[]): unknown => {
  let v: unknown = value;
  for (const k of path)
    v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[k] : undefined;
  return v;
};

function hasJq(): boolean {
  try {
    execFileSync('jq', ['--version'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Runs `harness demo`. */
export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { keep: { type: 'boolean' } }, false);
  if (values.help) {
    out(help);
    return 0;
  }
  const root = mkdtempSync(join(tmpdir(), 'harness-demo-'));
  const workspaceDir = join(root, 'workspace');
  cpSync(dirname(exampleWorkspace()), workspaceDir, { recursive: true });
  const instance = join(root, 'instance');
  const jq = hasJq();
  const steps: Step[] = [];
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const [node, harnessBin] = selfArgv();
  const transport = new StdioClientTransport({
    command: node,
    args: [harnessBin, 'serve', '--instance', instance, '--workspace', join(workspaceDir, 'workspace.yaml')],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? root, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  // Kept so a failed demo can show what serve said.
  let serveLog = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    serveLog = (serveLog + chunk.toString('utf8')).slice(-4000);
  });
  const client = new Client({ name: 'harness-demo', version });
  const call = async (name: string, args: Result): Promise<Result> => {
    const res = await client.callTool({ name, arguments: args });
    return (res.structuredContent ?? JSON.parse(String(get(res, 'content', 0, 'text')))) as Result;
  };
  const check = (title: string, ok: boolean, why: string) => {
    steps.push({ title, ok, ...(ok ? {} : { why }) });
    out(`${ok ? green('  ✓') : red('  ✗')} ${ok ? 'as expected' : `NOT as expected: ${why}`}`);
  };
  const show = (label: string, value: unknown) => out(dim(`    ${label}: ${JSON.stringify(value)}`));

  out(bold('harness demo: a real MCP client talking to harness serve over stdio'));
  out(dim(`  instance ${instance}`));
  if (!jq)
    out(
      dim(
        '  jq is not installed: the json-tools pack is left out, so the jq steps run over the fallback packs repo, echo and notes (install jq to see json-tools)',
      ),
    );
  try {
    const starting = spinner('starting harness serve');
    try {
      await client.connect(transport);
    } finally {
      starting.stop();
    }

    out(bold('\n1. The catalog as the model sees it (tools/list, then list_commands)'));
    const tools = await client.listTools();
    for (const t of tools.tools)
      out(`    tool ${t.name}  readOnlyHint=${String(t.annotations?.readOnlyHint)}`);
    const listing = await call('list_commands', {});
    const entries = (get(listing, 'entries') as { name: string; signature: string }[] | undefined) ?? [];
    for (const e of entries) out(`    ${e.signature}`);
    const names = new Set(entries.map((e) => e.name));
    check(
      'catalog',
      listing.status === 'ok' &&
        names.has('repo.log') &&
        names.has('loom.compose') &&
        names.has('json-tools.query') === jq,
      `listing ${JSON.stringify(listing).slice(0, 300)}`,
    );

    out(bold('\n2. A read command runs unattended (run_read_command)'));
    const readCall = jq
      ? { command: 'json-tools.query', args: { filter: '.[0].name', file: 'data/people.json' } }
      : { command: 'repo.grep', args: { pattern: 'name' } };
    out(`    run_read_command ${JSON.stringify(readCall)}`);
    const read = await call('run_read_command', readCall);
    show('outcome', get(read, 'outcome'));
    show('entry', get(read, 'entry'));
    check(
      'read',
      read.status === 'executed' &&
        get(read, 'outcome', 'ok') === true &&
        get(read, 'entry', 'status') === 'admitted',
      JSON.stringify(read).slice(0, 300),
    );

    out(bold('\n3. A write stops at a governance decision, then runs once a person approves it'));
    const writeCall = jq
      ? {
          command: 'json-tools.edit-in-place',
          args: { filter: '.[0].name = "Ada L."', file: 'data/people.json' },
        }
      : { command: 'notes.append', args: { line: 'approved by a person' } };
    out(`    run_command ${JSON.stringify(writeCall)}`);
    const held = await call('run_command', writeCall);
    show('outcome', get(held, 'outcome'));
    const approvalId = get(held, 'entry', 'value', 'approval_id');
    const heldOk = get(held, 'outcome', 'code') === 'approval_required' && typeof approvalId === 'string';
    check('approval required', heldOk, JSON.stringify(held).slice(0, 1200));
    if (typeof approvalId === 'string') {
      out(`    $ loom approvals approve ${approvalId} --instance ${instance}`);
      const approved = execFileSync(
        process.execPath,
        [bundledLoomCli(), 'approvals', 'approve', approvalId, '--instance', instance],
        { encoding: 'utf8' },
      );
      out(dim(`    ${approved.trim()}`));
      const ran = await call('run_command', writeCall);
      show('outcome', get(ran, 'outcome'));
      check(
        'approved write runs',
        ran.status === 'executed' && get(ran, 'outcome', 'ok') === true,
        JSON.stringify(ran).slice(0, 300),
      );
    }

    out(bold('\n4. A readonly pack refuses a declared write, with its reason'));
    const tag = await call('run_command', { command: 'repo.tag', args: { name: 'demo' } });
    show('outcome', get(tag, 'outcome'));
    check(
      'readonly refusal',
      get(tag, 'outcome', 'code') === 'not_granted' && typeof get(tag, 'outcome', 'reason') === 'string',
      JSON.stringify(tag).slice(0, 300),
    );

    out(bold('\n5. Injection: a filter of "; rm -rf /" reaches the program as one argument'));
    if (jq) {
      const inj = await call('run_read_command', {
        command: 'json-tools.query',
        args: { filter: '; rm -rf /', file: 'data/people.json' },
      });
      show('outcome', get(inj, 'outcome'));
      const stderr = String(get(inj, 'entry', 'value', 'stderr') ?? '');
      show('jq said', stderr.trim().split('\n')[0]);
      check(
        'injection is an ordinary jq error',
        inj.status === 'executed' && get(inj, 'outcome', 'ok') === false && /jq: error/.test(stderr),
        JSON.stringify(inj).slice(0, 400),
      );
    } else {
      out(dim('    (jq absent: echo.argv prints the argv it received)'));
      const inj = await call('run_read_command', { command: 'echo.argv', args: { value: '; rm -rf /' } });
      const printed = get(inj, 'entry', 'value', 'output');
      show('argv received', printed);
      check(
        'injection stays one argument',
        inj.status === 'executed' &&
          Array.isArray(printed) &&
          printed.length === 1 &&
          printed[0] === '; rm -rf /',
        JSON.stringify(inj).slice(0, 400),
      );
    }

    out(bold('\n6. A loom compose, and its identical retry returning the original receipt'));
    const compose = {
      request_id: 'demo-compose-1',
      components: [{ ref: 'url:https://example.org/spec', title: 'The spec' }, { ref: 'person:ada' }],
    };
    const first = await call('loom_compose', compose);
    show('receipt', get(first, 'receipt'));
    const again = await call('loom_compose', compose);
    show('retry', { replayed: get(again, 'replayed'), current_version: get(again, 'current_version') });
    check(
      'compose is idempotent',
      first.status === 'ok' &&
        get(first, 'replayed') === false &&
        get(again, 'replayed') === true &&
        JSON.stringify(get(first, 'receipt')) === JSON.stringify(get(again, 'receipt')),
      `${JSON.stringify(first).slice(0, 300)} / ${JSON.stringify(again).slice(0, 300)}`,
    );
  } catch (error) {
    steps.push({ title: 'demo', ok: false, why: (error as Error).message });
    out(red(`  ✗ the demo stopped: ${(error as Error).message}`));
  } finally {
    await client.close().catch(() => {});
    if (!values.keep) rmSync(root, { recursive: true, force: true });
  }
  const failed = steps.filter((s) => !s.ok);
  if (failed.length > 0 && serveLog.trim() !== '') {
    out(dim('\nharness serve said:'));
    for (const line of serveLog.trim().split('\n').slice(-20)) out(dim(`  ${line}`));
  }
  out('');
  out(
    failed.length === 0
      ? green(`demo passed: ${steps.length} steps behaved as expected`)
      : red(`demo FAILED: ${failed.map((s) => s.title).join(', ')}`),
  );
  return failed.length === 0 ? 0 : 1;
}
