// Conventions every command follows: --help, exit codes, one clear error line, --debug, NO_COLOR,
// a spinner only on a TTY, and `call` reading its input.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CliError, describeFailure, exitCodes } from '../src/errors';
import { green, spinner } from '../src/output';
import { runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());
const run = (args: string[], extra: { env?: Record<string, string>; input?: string } = {}) =>
  runCli(args, { home: box.home, ...extra });

describe('--help', () => {
  const commands = [
    [],
    ['serve'],
    ['call'],
    ['capabilities'],
    ['packs'],
    ['packs', 'check'],
    ['packs', 'list'],
    ['tmpl'],
    ['tmpl', 'check'],
    ['tmpl', 'render'],
    ['doctor'],
    ['demo'],
    ['runner'],
    ['runs'],
    ['trigger'],
  ];
  it.each(commands.map((c) => [c.join(' ') || '(top level)', c]))(
    'harness %s --help prints usage on stdout and exits 0',
    async (_name, args) => {
      const r = await run([...(args as string[]), '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Usage/);
      expect(r.stderr).toBe('');
    },
  );

  it('harness with no command prints usage and exits 2', async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Exit codes: 0 ok, 1 a check or step failed, 2 usage, 3 configuration');
  });

  it('--version prints the package version', async () => {
    const r = await run(['--version']);
    expect([r.code, r.stdout.trim()]).toEqual([0, 'harness 0.1.0']);
  });
});

describe('errors and exit codes', () => {
  it('an unknown command is one line on stderr, exit 2', async () => {
    const r = await run(['frobnicate']);
    expect(r.code).toBe(exitCodes.usage);
    expect(r.stderr).toBe(
      "harness: unknown command 'frobnicate'; expected one of init, serve, call, capabilities, packs, servers, tmpl, doctor, demo, runner, runs, trigger, console, approvals, workspace\n",
    );
  });

  it('an unknown command close to a known one suggests it', async () => {
    const r = await run(['servve']);
    expect(r.code).toBe(exitCodes.usage);
    expect(r.stderr).toMatch(
      /^harness: unknown command 'servve'; did you mean 'serve'\? expected one of init, serve, /,
    );
  });

  it('serve --help lists the workspace and agent flags before the policy and Fabric flags', async () => {
    const r = await run(['serve', '--help']);
    const at = (flag: string) => r.stdout.indexOf(flag);
    expect(at('--workspace <file>')).toBeGreaterThan(0);
    expect(at('--workspace <file>')).toBeLessThan(at('--agent <id>'));
    expect(at('--agent <id>')).toBeLessThan(at('--loom-commands-config'));
    expect(at('--loom-commands-config')).toBeLessThan(at('--cfc-mode'));
    expect(at('--cfc-mode')).toBeLessThan(at('--fabric-api-url'));
  });

  it('serve --retention refuses what is not a duration, exit 2, and --help names the flag', async () => {
    const r = await run(['serve', '--retention', 'last week']);
    expect(r.code).toBe(exitCodes.usage);
    expect(r.stderr).toBe(
      "harness: --retention must be a duration such as 30d, 12h or 90m, found 'last week'\n",
    );
    expect((await run(['serve', '--help'])).stdout).toContain('--retention <30d>');
  });

  it('an unknown flag names the flag, exit 2', async () => {
    const r = await run(['capabilities', '--frob']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain("Unknown option '--frob'");
  });

  it('--debug is accepted before or after the command', async () => {
    expect((await run(['--debug', 'capabilities'])).code).toBe(0);
    expect((await run(['capabilities', '--debug'])).code).toBe(0);
  });

  it('an instance directory that cannot be created is a configuration error, exit 3, one line', async () => {
    const r = await run(['call', 'list_commands', '--instance', '/dev/null/instance']);
    expect(r.code).toBe(exitCodes.config);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^harness: cannot open the instance directory \/dev\/null\/instance: /);
  });

  it('console --instance naming no instance says who creates it and creates nothing', async () => {
    const dir = join(box.root, 'never-served');
    const r = await run(['console', '--instance', dir]);
    expect(r.code).toBe(exitCodes.config);
    expect(r.stderr).toBe(
      `harness: no instance at ${dir}: it is created by the first \`harness serve --instance ${dir}\` (the one your MCP client starts, or run it once with --workspace <file> --agent <id>); the console does not create a named instance\n`,
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('a socket path held by something that is not a broker is "host unavailable", exit 4', async () => {
    const instance = join(box.root, 'busy');
    expect((await run(['call', 'list_commands', '--instance', instance])).code).toBe(0);
    mkdirSync(join(instance, 'run'), { recursive: true });
    writeFileSync(join(instance, 'run', 'broker.sock'), 'not a socket');
    const r = await run(['call', 'list_commands', '--instance', instance]);
    expect(r.code).toBe(exitCodes.host_unavailable);
    expect(r.stderr).toMatch(/^harness: the embedded host at .* did not start: /m);
  });

  it('a bug prints one line without its stack; --debug adds the stack', () => {
    const bug = new TypeError('x is not a function');
    expect(describeFailure(bug, false)).toEqual({
      lines: ['harness: internal error: x is not a function (run with --debug for the stack)'],
      exitCode: 70,
    });
    const debug = describeFailure(bug, true);
    expect(debug.lines[0]).toBe('harness: internal error: x is not a function');
    expect(debug.lines[1]).toContain('TypeError: x is not a function\n    at ');
    expect(describeFailure(new CliError('config', 'bad file'), false)).toEqual({
      lines: ['harness: bad file'],
      exitCode: 3,
    });
  });
});

describe('terminal output', () => {
  const original = process.env.NO_COLOR;
  afterEach(() => {
    if (original === undefined) delete process.env.NO_COLOR;
    else process.env.NO_COLOR = original;
  });
  const tty = { isTTY: true } as NodeJS.WriteStream;

  it('colours only a TTY, and never when NO_COLOR is set', () => {
    delete process.env.NO_COLOR;
    expect(green('ok', tty)).toBe('\u001b[32mok\u001b[0m');
    expect(green('ok', { isTTY: false } as NodeJS.WriteStream)).toBe('ok');
    process.env.NO_COLOR = '1';
    expect(green('ok', tty)).toBe('ok');
  });

  it('draws a spinner only on a TTY (a stand-in stream records what it is given)', () => {
    const piped = { isTTY: false, write: vi.fn(() => true) };
    spinner('working', piped).stop();
    expect(piped.write).not.toHaveBeenCalled();
    const terminal = { isTTY: true, write: vi.fn(() => true) };
    spinner('working', terminal).stop();
    expect(terminal.write).toHaveBeenCalledWith(expect.stringContaining('working'));
    expect(terminal.write).toHaveBeenLastCalledWith('\r\u001b[2K');
  });

  it('doctor output carries no escape codes when piped', async () => {
    const r = await run(['doctor', '--instance', join(box.root, 'doc')], { env: { NO_COLOR: '' } });
    expect(r.stdout).not.toContain('\u001b[');
  });
});

describe('harness call', () => {
  const instance = () => join(box.root, 'call');

  it('reads the tool input from stdin with -', async () => {
    const r = await run(['call', 'run_read_command', '-', '--instance', instance()], {
      input: '{"command":"echo.argv","args":{"value":"from stdin"}}',
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).entry.value.output).toEqual(['from stdin']);
  });

  it('exits 1 when the result is a failure, still printing it as JSON', async () => {
    const r = await run(['call', 'run_command', '{"command":"nope.x","args":{}}', '--instance', instance()]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).status).toBe('unknown_command');
  });

  it('refuses input that is not JSON, exit 2', async () => {
    const r = await run(['call', 'list_commands', '{nope', '--instance', instance()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^harness: the tool input must be JSON: /);
  });

  it('prints the call result and the packs listing while a stdio serve runs on the same instance', async () => {
    const { connectStdio } = await import('./helpers');
    const dir = join(box.root, 'shared');
    const conn = await connectStdio(['--instance', dir], box.home);
    try {
      // serve starts its host in the background; the call comes once it serves the socket.
      await conn.stderrWith('harness: store ');
      const r = await run(['call', 'list_commands', '--instance', dir]);
      expect(r.stderr).toContain('already served by another harness process');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).status).toBe('ok');
      const listed = await run(['packs', 'list', '--instance', dir]);
      expect(listed.stdout).toContain('echo.argv(value: string)');
      expect(listed.stdout).toMatch(/\(\d+ command\(s\); hidden 0, omitted 0\)/);
    } finally {
      await conn.close();
    }
  });

  it('prints the call result while an HTTP serve runs on the same instance', async () => {
    const { startHttp } = await import('./helpers');
    const dir = join(box.root, 'shared-http');
    const serve = await startHttp(['--http', '127.0.0.1:0', '--instance', dir], box.home);
    try {
      const r = await run([
        'call',
        'run_read_command',
        '{"command":"echo.argv","args":{"value":"beside serve"}}',
        '--instance',
        dir,
      ]);
      expect(r.stderr).toContain('already served by another harness process');
      expect(JSON.parse(r.stdout).entry.value.output).toEqual(['beside serve']);
    } finally {
      await serve.stop();
    }
  });
});
