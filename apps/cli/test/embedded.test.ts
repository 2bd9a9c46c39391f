// The embedded default's own flags: which agent its broker serves (--agent, --scope), and the
// workspace an instance keeps (--workspace), all refused where a host configuration is given.
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { until } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectStdio, get, runCli, sandbox, slowWorkspace, structured } from './helpers';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const names = (stdout: string): string[] =>
  (JSON.parse(stdout) as { entries: { name: string }[] }).entries.map((e) => e.name).sort();

describe('the embedded default serves one agent', () => {
  it('serves the demo agent by default, and the agent --agent names instead', async () => {
    const demo = await runCli(['call', 'list_commands', '--instance', box.instance], { home: box.home });
    expect(demo.code, demo.stderr).toBe(0);
    expect(names(demo.stdout)).toContain('repo.tag');
    const other = join(box.root, 'reader');
    const reader = await runCli(['call', 'list_commands', '--instance', other, '--agent', 'reader'], {
      home: box.home,
    });
    expect(reader.code, reader.stderr).toBe(0);
    expect(names(reader.stdout)).not.toContain('repo.tag');
    expect(names(reader.stdout)).toContain('repo.log');
  });

  it('takes a scope file that narrows the agent to a subset of its grants', async () => {
    const scope = join(box.root, 'scope.yaml');
    writeFileSync(scope, 'run: narrow\nagent: reader\ngrants: [repo.log]\nbuiltins: false\n');
    const r = await runCli(['call', 'list_commands', '--instance', box.instance, '--scope', scope], {
      home: box.home,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(names(r.stdout)).toEqual(['repo.log']);
  });

  it('refuses an agent the workspace does not declare, exit 3, one line', async () => {
    const r = await runCli(['call', 'list_commands', '--instance', box.instance, '--agent', 'nobody'], {
      home: box.home,
    });
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/nobody/);
  });
});

describe('a new instance', () => {
  it('answers every command started at once on it: one creates it, the others open it and leave nothing behind', async () => {
    const runs = await Promise.all(
      [0, 1, 2].map(() => runCli(['call', 'list_commands', '--instance', box.instance], { home: box.home })),
    );
    for (const r of runs) {
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(names(r.stdout)).toContain('repo.tag');
    }
    expect(existsSync(join(box.instance, 'instance.json'))).toBe(true);
    const beside = readdirSync(dirname(box.instance)).filter((name) => name.includes('.init-'));
    expect(beside).toEqual([]);
  });
});

describe('a serve beside a harness call', () => {
  const socket = () => join(box.instance, 'run', 'broker.sock');
  const echo = (serve: Awaited<ReturnType<typeof connectStdio>>, value: string) =>
    serve.client.callTool({ name: 'run_read_command', arguments: { command: 'echo.argv', args: { value } } });

  /** A serve started while a `harness call` holds the instance's broker, once that call has ended. */
  async function serveAfterTheCall(): Promise<Awaited<ReturnType<typeof connectStdio>>> {
    const slow = runCli(
      [
        'call',
        'run_read_command',
        '{"command":"slow.wait","args":{"seconds":3}}',
        '--instance',
        box.instance,
        '--workspace',
        slowWorkspace,
      ],
      { home: box.home },
    );
    await until(() => existsSync(socket()), 'the broker of the call to listen');
    const serve = await connectStdio(['--instance', box.instance], box.home);
    expect(await serve.stderrWith('harness: store ')).toContain(
      'already served by another harness process; using it',
    );
    const called = await slow;
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toContain('done');
    return serve;
  }

  it("serves on once the call whose broker it shared has ended: its next call starts the serve's own broker", async () => {
    const serve = await serveAfterTheCall();
    try {
      const after = await echo(serve, 'after the call');
      expect(get(structured(after), 'entry', 'value', 'output')).toEqual(['after the call']);
      const brokerLines = serve
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('harness: broker socket '));
      expect(brokerLines).toHaveLength(2);
      expect(brokerLines[1]).not.toContain('already served');
    } finally {
      await serve.close();
    }
  });

  it('answers host_unavailable for a call whose takeover fails, and takes over at a later call', async () => {
    const serve = await serveAfterTheCall();
    try {
      // Something that is not a socket where the broker would listen: the takeover is refused.
      writeFileSync(socket(), 'not a socket');
      const refused = structured(await echo(serve, 'blocked'));
      expect(refused).toMatchObject({ status: 'failed_to_deliver', landed: 'no', code: 'host_unavailable' });
      expect(String(refused.message)).toContain('exists and is not a socket');
      rmSync(socket());
      const after = await echo(serve, 'after the takeover');
      expect(get(structured(after), 'entry', 'value', 'output')).toEqual(['after the takeover']);
    } finally {
      await serve.close();
    }
  });
});

describe('an instance keeps its workspace and its agent', () => {
  it('refuses a --workspace other than the one the instance was created with, naming both', async () => {
    const first = await runCli(['call', 'list_commands', '--instance', box.instance], { home: box.home });
    expect(first.code, first.stderr).toBe(0);
    const other = await runCli(
      ['call', 'list_commands', '--instance', box.instance, '--workspace', slowWorkspace],
      {
        home: box.home,
      },
    );
    expect(other.code).toBe(3);
    expect(other.stderr).toContain(slowWorkspace);
    expect(other.stderr).toContain('pass a new --instance');
  });

  it('remembers the agent it was created with, so later commands need no --agent', async () => {
    const first = await runCli(['call', 'list_commands', '--instance', box.instance, '--agent', 'reader'], {
      home: box.home,
    });
    expect(first.code, first.stderr).toBe(0);
    const later = await runCli(['packs', 'list', '--instance', box.instance], { home: box.home });
    expect(later.stdout).toContain('repo.log(count: integer)');
    expect(later.stdout).not.toContain('repo.tag(');
  });

  it('refuses another --agent than the one it was created with, naming both', async () => {
    await runCli(['call', 'list_commands', '--instance', box.instance, '--agent', 'reader'], {
      home: box.home,
    });
    const r = await runCli(['call', 'list_commands', '--instance', box.instance, '--agent', 'editor'], {
      home: box.home,
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `harness: the instance ${box.instance} serves agent "reader", not agent "editor"; an instance keeps what it serves from its creation, so drop the flag or pass a new --instance <dir>\n`,
    );
  });

  it('says which flag to pass when the workspace has several agents and no demo agent, creating nothing', async () => {
    const ws = join(box.root, 'mine.yaml');
    writeFileSync(
      ws,
      'version: 1\ncommand_packs:\n  - id: echo\n    commands:\n      - id: argv\n        argv: [echo, "{{value}}"]\n        effects: read\nagents:\n  - id: me\n    grants: [pack:echo]\n  - id: you\n    grants: [pack:echo]\n',
    );
    const r = await runCli(['call', 'list_commands', '--instance', box.instance, '--workspace', ws], {
      home: box.home,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'harness: --agent: scope: agent "demo" is not declared in the workspace; declared agents: me, you; pass --agent <id> naming one of them\n',
    );
    expect(existsSync(box.instance)).toBe(false);
    const me = await runCli(
      ['call', 'list_commands', '--instance', box.instance, '--workspace', ws, '--agent', 'me'],
      {
        home: box.home,
      },
    );
    expect(names(me.stdout)).toContain('echo.argv');
  });
});

describe('embedded-only flags', () => {
  it('--agent, --scope and --workspace are usage errors next to a host configuration', async () => {
    const config = join(box.root, 'commands.json');
    writeFileSync(
      config,
      JSON.stringify({ cliPath: '/bin/true', transport: { kind: 'broker', socketPath: '/tmp/x.sock' } }),
    );
    for (const flag of [
      ['--agent', 'reader'],
      ['--scope', config],
      ['--workspace', slowWorkspace],
    ]) {
      const r = await runCli(['call', 'list_commands', '--loom-commands-config', config, ...flag], {
        home: box.home,
      });
      expect(r.code, flag.join(' ')).toBe(2);
      expect(r.stderr).toContain(`${flag[0]} applies to the embedded default only`);
    }
  });
});
