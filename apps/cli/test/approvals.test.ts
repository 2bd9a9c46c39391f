// `harness approvals list|approve|deny` against a real `harness serve` session: a strict call waits,
// the hint the model reads names the exact command a person runs, and that command, split as a shell
// splits it and run as printed, approves the call, after which the identical call runs once.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initInstance } from '@harness/host';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { appDir, connectStdio, get, runCli, sandbox, structured } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

/** A copy of the example workspace (its `notes.append` is strict and writes data/notes.txt). */
function workspaceCopy(name: string): string {
  const dir = join(box.root, name);
  cpSync(join(appDir, '..', '..', 'fixtures', 'workspaces', 'demo'), dir, { recursive: true });
  return dir;
}

const append = (client: Client, line: string) =>
  client.callTool(
    { name: 'run_command', arguments: { command: 'notes.append', args: { line } } },
    undefined,
    {
      timeout: 50_000,
    },
  );

/** The text content the model reads of a tool result. */
const textOf = (result: unknown): string =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? [])
    .map((c) => (c.type === 'text' ? (c.text ?? '') : ''))
    .join('\n');

/** The approval command the hint names, as printed: `a person must approve it (<command>)`. */
function hintOf(result: unknown): string {
  const hint = /a person must approve it \((harness approvals [^)]*)\)/.exec(textOf(result))?.[1];
  expect(hint, textOf(result)).toBeDefined();
  return hint ?? '';
}

/** The words a POSIX shell splits `line` into. */
function shellWords(line: string): string[] {
  return execFileSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' })
    .split('\0')
    .slice(0, -1);
}

/** Runs a hint as printed: split by a shell, its first word (`harness`) the built bin. */
function runAsPrinted(line: string, home: string, env: Record<string, string> = {}) {
  const [first, ...args] = shellWords(line);
  expect(first).toBe('harness');
  return runCli(args, { home, env });
}

describe('harness approvals', () => {
  it('lists a call waiting in a serve session on the default instance, and the hint the model reads approves it as printed; the identical call then runs', async () => {
    const home = join(box.root, 'home-default');
    const workspace = workspaceCopy('ws-default');
    const serve = await connectStdio(['--workspace', join(workspace, 'workspace.yaml')], home);
    try {
      const held = await append(serve.client, 'approved by a person');
      expect(get(structured(held), 'outcome', 'code')).toBe('approval_required');
      const id = String(get(structured(held), 'entry', 'value', 'approval', 'id'));
      const hint = hintOf(held);
      expect(hint).toBe(`harness approvals approve ${id}`);

      const listed = await runCli(['approvals', 'list'], { home });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(
        new RegExp(
          `^${id} {2}pending {2}notes\\.append {2}tier strict {2}agent demo {2}run \\S+ {2}asked \\d+[smh] ago {2}expires \\S+\\n` +
            ' {2}args {2}line="approved by a person"\\n' +
            ' {2}argv {2}node -e .+ -- "approved by a person"\\n' +
            ' {2}plan {2}[0-9a-f]{12}\\n$',
        ),
      );
      const json = await runCli(['approvals', 'list', '--json'], { home });
      expect((JSON.parse(json.stdout) as { approvals: { id: string }[] }).approvals.map((a) => a.id)).toEqual(
        [id],
      );

      const approved = await runAsPrinted(hint, home);
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stdout.split('\n')[0]).toMatch(
        new RegExp(`^${id} approved: the identical call may run once, until \\d{4}-`),
      );
      const ran = await append(serve.client, 'approved by a person');
      expect(get(structured(ran), 'outcome', 'ok')).toBe(true);
      expect(readFileSync(join(workspace, 'data', 'notes.txt'), 'utf8')).toBe('approved by a person\n');
      expect((await runCli(['approvals', 'list'], { home })).stdout).toBe('no pending approvals\n');
      // The decision says where it was given.
      const all = JSON.parse((await runCli(['approvals', 'list', '--all', '--json'], { home })).stdout) as {
        approvals: { id: string; decided_via: string | null }[];
      };
      expect(all.approvals.find((a) => a.id === id)?.decided_via).toBe('cli');
    } finally {
      await serve.close();
    }
  }, 90_000);

  it('names the instance serve chose by HARNESS_HOME, shell-quoted, so the hint works in a shell without the variable', async () => {
    const home = join(box.root, 'home-env');
    const instance = join(box.root, "ann's instance");
    const workspace = workspaceCopy('ws-env');
    const serve = await connectStdio(['--workspace', join(workspace, 'workspace.yaml')], home, {
      HARNESS_HOME: instance,
    });
    try {
      const held = await append(serve.client, 'from the env');
      const id = String(get(structured(held), 'entry', 'value', 'approval', 'id'));
      const hint = hintOf(held);
      expect(hint).toBe(`harness approvals approve ${id} --instance '${instance.replace("'", `'\\''`)}'`);
      // The person's shell: the same HOME, no HARNESS_HOME.
      const approved = await runAsPrinted(hint, home);
      expect(approved.code, approved.stderr).toBe(0);
      const ran = await append(serve.client, 'from the env');
      expect(get(structured(ran), 'outcome', 'ok')).toBe(true);
    } finally {
      await serve.close();
    }
  }, 90_000);

  it('finds an instance beside the default one by the approval id alone: the hint names no --instance, and approves it as printed', async () => {
    const home = join(box.root, 'home-beside');
    // Where harness init puts a project's instance; the default instance holds other approvals.
    const instance = join(home, '.local', 'share', 'harness', 'project-1a2b3c4d');
    const workspace = workspaceCopy('ws-beside');
    const other = await connectStdio(['--workspace', join(workspace, 'workspace.yaml')], home);
    const serve = await connectStdio(
      ['--workspace', join(workspace, 'workspace.yaml'), '--instance', instance],
      home,
    );
    try {
      await append(other.client, 'held on the default instance');
      const held = await append(serve.client, 'beside the default');
      const id = String(get(structured(held), 'entry', 'value', 'approval', 'id'));
      const hint = hintOf(held);
      expect(hint).toBe(`harness approvals approve ${id}`);

      const approved = await runAsPrinted(hint, home);
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stdout.split('\n')[0]).toMatch(
        new RegExp(`^${id} approved: the identical call may run once`),
      );
      const ran = await append(serve.client, 'beside the default');
      expect(get(structured(ran), 'outcome', 'ok')).toBe(true);
      // The default instance's own approval is still pending; an id no instance holds is named.
      expect((await runCli(['approvals', 'list'], { home })).stdout).toMatch(
        /^apr-\S+ {2}pending {2}notes\.append/,
      );
      const unknown = await runCli(['approvals', 'deny', 'apr-0000000000000000'], { home });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(
        `no approval has the id apr-0000000000000000 on the instance ${join(home, '.local', 'share', 'harness', 'default')}`,
      );
    } finally {
      await Promise.all([serve.close(), other.close()]);
    }
  }, 90_000);

  it('names an unknown id and the command that lists the ids', async () => {
    const home = join(box.root, 'home-unknown');
    const dir = join(home, '.local', 'share', 'harness', 'default');
    await initInstance(dir, join(workspaceCopy('ws-unknown'), 'workspace.yaml'), {
      serves: { agent: 'demo' },
    });
    const r = await runCli(['approvals', 'approve', 'apr-nope'], { home });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `harness: no approval has the id apr-nope on the instance ${dir}; the pending ones are listed by \`harness approvals list\`\n`,
    );
    const denied = await runCli(['approvals', 'deny', 'apr-nope', '--instance', box.instance], { home });
    expect(denied.code).toBe(3);
    expect(denied.stderr).toBe(
      `harness: no instance at ${box.instance} (chosen by --instance), so no approvals; harness serve creates it on first use, or pass --instance <dir> (or set HARNESS_HOME) to the instance serve uses\n`,
    );
  });
});

describe('harness call on a call held for approval', () => {
  it('exits 5 with approval_required in its result, as the command did not run; once approved, the identical call exits 0', async () => {
    const home = join(box.root, 'home-call');
    const instance = join(box.root, 'instance-call');
    const workspace = join(workspaceCopy('ws-call'), 'workspace.yaml');
    const input = JSON.stringify({ command: 'notes.append', args: { line: 'held by call' } });
    const call = () =>
      runCli(['call', 'run_command', input, '--instance', instance, '--workspace', workspace], { home });
    const held = await call();
    expect(held.code, held.stderr).toBe(5);
    const result = JSON.parse(held.stdout) as unknown;
    expect(get(result, 'outcome', 'code')).toBe('approval_required');
    const id = String(get(result, 'entry', 'value', 'approval', 'id'));
    const approved = await runCli(['approvals', 'approve', id, '--instance', instance], { home });
    expect(approved.code, approved.stderr).toBe(0);
    const ran = await call();
    expect(ran.code, ran.stderr).toBe(0);
    expect(get(JSON.parse(ran.stdout) as unknown, 'outcome', 'ok')).toBe(true);
  });
});
