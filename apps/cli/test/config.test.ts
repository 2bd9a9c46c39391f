// Host configuration (seed 000 and 001 "Host configuration"): the configuration flags and their
// environment defaults, --allow-tool, the run manifest, the Fabric binding, CFC mode and ceiling,
// through the real bin. A real broker (started here with @harness/host) serves a real instance; the
// configured cliPath is a small shell wrapper around the real loom bin that records the argv and
// environment each host process received.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initInstance, type RunningBroker, startBroker } from '@harness/host';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, get, loomBin, runCli, sandbox, slowWorkspace, structured } from './helpers';

const box = sandbox();
const hostDir = join(box.root, 'host');
const log = join(hostDir, 'loom-calls.log');
const wrapper = join(hostDir, 'loom-wrapper.sh');
const queuePath = join(hostDir, 'q.sock');
const commandsCfg = join(hostDir, 'commands.json');
const authoringCfg = join(hostDir, 'authoring.json');
let broker: RunningBroker;

const COMMAND = ['list_commands', 'run_command', 'run_read_command'];
const LOOM = ['loom_compose', 'loom_inspect', 'loom_authoring_context'];

beforeAll(async () => {
  mkdirSync(box.home, { recursive: true });
  mkdirSync(hostDir, { recursive: true });
  await initInstance(join(hostDir, 'instance'), slowWorkspace);
  broker = await startBroker({
    instanceDir: join(hostDir, 'instance'),
    queuePath,
    scope: { run: 'config-test', agent: 'demo' },
  });
  writeFileSync(
    wrapper,
    `#!/bin/sh\n{ printf 'ARGV:'; printf ' %s' "$@"; printf '\\n'; env | sed 's/^/ENV:/'; } >> '${log}'\nexec '${process.execPath}' '${loomBin}' "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  const config = { cliPath: wrapper, transport: { kind: 'broker', socketPath: queuePath } };
  writeFileSync(commandsCfg, JSON.stringify({ ...config, jobId: 'ignored-by-design' }));
  writeFileSync(authoringCfg, JSON.stringify(config));
});
afterAll(async () => {
  await broker?.close();
  box.cleanup();
});

const home = () => box.home;
const call = (args: string[], env: Record<string, string> = {}, input?: string) =>
  runCli(['call', ...args], { home: home(), env, ...(input !== undefined ? { input } : {}) });
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

describe('--loom-commands-config', () => {
  it('call accepts --loom-commands-config with an absolute path and reaches the host through it [HC-02]', async () => {
    const r = await call(['list_commands', '--loom-commands-config', commandsCfg]);
    expect(r.code).toBe(0);
    const names = (json(r.stdout).entries as { name: string }[]).map((e) => e.name);
    expect(names).toContain('slow.wait');
    expect(r.stderr).not.toContain('embedded host');
  });

  it('a relative --loom-commands-config path is refused (decision: paths must be absolute), exit 3 [HC-02]', async () => {
    const r = await call(['list_commands', '--loom-commands-config', 'commands.json']);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe(
      'harness: --loom-commands-config: the configuration path must be absolute (found "commands.json")',
    );
  });

  it('a config with a direct transport is refused when read, exit 3 [HC-02]', async () => {
    const direct = join(hostDir, 'direct.json');
    writeFileSync(
      direct,
      JSON.stringify({
        cliPath: wrapper,
        transport: { kind: 'direct', instanceDir: hostDir, runId: 'r', actor: 'agent:x' },
      }),
    );
    const r = await call(['list_commands', '--loom-commands-config', direct]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/transport/);
  });

  it('call takes the path from CF_HARNESS_LOOM_COMMANDS_CONFIG [HC-03]', async () => {
    const r = await call(['list_commands'], { CF_HARNESS_LOOM_COMMANDS_CONFIG: commandsCfg });
    expect(r.code).toBe(0);
    expect(json(r.stdout).status).toBe('ok');
  });

  it('the flag wins over the variable when both are set (decision) [HC-03]', async () => {
    const r = await call(['list_commands', '--loom-commands-config', commandsCfg], {
      CF_HARNESS_LOOM_COMMANDS_CONFIG: join(hostDir, 'missing.json'),
    });
    expect(r.code).toBe(0);
    const bad = await call(['list_commands', '--loom-commands-config', join(hostDir, 'missing.json')], {
      CF_HARNESS_LOOM_COMMANDS_CONFIG: commandsCfg,
    });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('missing.json');
  });

  it('the config is read by the harness; the host process gets neither its path, its content nor the variable [HC-04]', async () => {
    writeFileSync(log, '');
    const r = await call(
      ['run_read_command', '{"command":"echo.argv","args":{"value":"v"}}', '--job-id', 'job-7'],
      { CF_HARNESS_LOOM_COMMANDS_CONFIG: commandsCfg, CANARY_AMBIENT: 'canary' },
    );
    expect(r.code).toBe(0);
    const seen = readFileSync(log, 'utf8');
    expect(seen).toMatch(/ARGV: command list --json/);
    expect(seen).toMatch(/ARGV: command run echo\.argv --args-json - --json --read-only/);
    expect(seen).not.toContain(commandsCfg);
    expect(seen).not.toContain('CF_HARNESS');
    expect(seen).not.toContain('canary');
    expect(seen).not.toContain('ignored-by-design');
    expect(seen).toContain(`ENV:LOOM_PAGE_RPC_QUEUE=${queuePath}`);
  });

  it('without the commands config the three command tools are absent from the run [HC-05]', async () => {
    const conn = await connectStdio(['--loom-authoring-config', authoringCfg], home());
    try {
      expect(await toolNames(conn.client)).toEqual(LOOM);
    } finally {
      await conn.close();
    }
    const r = await call(['list_commands', '--loom-authoring-config', authoringCfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no tool 'list_commands' in this session");
    const none = await runCli(['capabilities', '--json', '--no-embedded'], { home: home() });
    const tools = json(none.stdout).tools as { name: string; available: boolean }[];
    expect(tools.filter((t) => t.available)).toEqual([]);
  });

  it('--allow-tool naming a command tool without the commands config is refused at argument parsing [HC-06]', async () => {
    for (const name of COMMAND) {
      const r = await call(['list_commands', '--loom-authoring-config', authoringCfg, '--allow-tool', name]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        `harness: --allow-tool ${name} needs --loom-commands-config (or CF_HARNESS_LOOM_COMMANDS_CONFIG); without it the command tools are absent`,
      );
      expect(r.stdout).toBe('');
    }
    // Refused before anything starts: serve creates no instance.
    const instance = join(box.root, 'never');
    const s = await runCli(
      ['serve', '--no-embedded', '--instance', instance, '--allow-tool', 'run_command'],
      {
        home: home(),
      },
    );
    expect(s.code).toBe(2);
    expect(existsSync(instance)).toBe(false);
  });
});

describe('--loom-authoring-config', () => {
  const compose = (id: string) =>
    JSON.stringify({ request_id: id, components: [{ ref: 'url:https://example.org', title: 'Example' }] });

  it('the batch CLI (harness call) accepts --loom-authoring-config [LA-01]', async () => {
    const r = await call(['loom_compose', compose('la-01'), '--loom-authoring-config', authoringCfg]);
    expect(r.code).toBe(0);
    const v = json(r.stdout);
    expect(get(v, 'receipt', 'request_id')).toBe('la-01');
    expect(v.replayed).toBe(false);
  });

  it('the interactive stdio entrypoint (harness serve) accepts --loom-authoring-config [LA-02]', async () => {
    const conn = await connectStdio(['--loom-authoring-config', authoringCfg], home());
    try {
      expect(await toolNames(conn.client)).toEqual(LOOM);
      const res = await conn.client.callTool({
        name: 'loom_compose',
        arguments: JSON.parse(compose('la-02')),
      });
      expect(get(res, 'structuredContent', 'receipt', 'request_id')).toBe('la-02');
    } finally {
      await conn.close();
    }
  });

  it('call and serve take the path from CF_HARNESS_LOOM_AUTHORING_CONFIG; the flag wins (decision) [LA-04]', async () => {
    const env = { CF_HARNESS_LOOM_AUTHORING_CONFIG: authoringCfg };
    const r = await call(['loom_compose', compose('la-04')], env);
    expect(r.code).toBe(0);
    const conn = await connectStdio([], home(), env);
    try {
      expect(await toolNames(conn.client)).toEqual(LOOM);
    } finally {
      await conn.close();
    }
    const flagWins = await call(
      ['loom_compose', compose('la-04b'), '--loom-authoring-config', '/nonexistent/a.json'],
      env,
    );
    expect(flagWins.code).toBe(3);
    expect(flagWins.stderr).toContain('/nonexistent/a.json');
  });

  it('the authoring config is read by the harness and never reaches the host process [LA-05]', async () => {
    writeFileSync(log, '');
    const r = await call(['loom_compose', compose('la-05')], {
      CF_HARNESS_LOOM_AUTHORING_CONFIG: authoringCfg,
    });
    expect(r.code).toBe(0);
    const seen = readFileSync(log, 'utf8');
    expect(seen).toMatch(/ARGV: command run loom\.compose --args-json - --json/);
    expect(seen).not.toContain(authoringCfg);
    expect(seen).not.toContain('CF_HARNESS');
  });

  it('without the authoring config the Loom tools are absent, and --allow-tool naming one is refused at parsing (decision) [LA-06]', async () => {
    const conn = await connectStdio(['--loom-commands-config', commandsCfg], home());
    try {
      expect(await toolNames(conn.client)).toEqual(COMMAND);
    } finally {
      await conn.close();
    }
    for (const name of LOOM) {
      const r = await call(['list_commands', '--loom-commands-config', commandsCfg, '--allow-tool', name]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--allow-tool ${name} needs --loom-authoring-config`);
    }
  });

  it('--allow-tool grants the three Loom tools (and only what it names) [LA-07]', async () => {
    const conn = await connectStdio(
      [
        '--loom-authoring-config',
        authoringCfg,
        '--loom-commands-config',
        commandsCfg,
        ...LOOM.flatMap((n) => ['--allow-tool', n]),
      ],
      home(),
    );
    try {
      expect(await toolNames(conn.client)).toEqual(LOOM);
    } finally {
      await conn.close();
    }
    const one = await connectStdio(
      ['--loom-authoring-config', authoringCfg, '--allow-tool', 'loom_inspect'],
      home(),
    );
    try {
      expect(await toolNames(one.client)).toEqual(['loom_inspect']);
    } finally {
      await one.close();
    }
  });

  it('a run manifest grants the three Loom tools [LA-08]', async () => {
    const manifest = join(hostDir, 'manifest-la08.json');
    writeFileSync(manifest, JSON.stringify({ allowTools: LOOM }));
    const conn = await connectStdio(
      [
        '--loom-authoring-config',
        authoringCfg,
        '--loom-commands-config',
        commandsCfg,
        '--manifest',
        manifest,
      ],
      home(),
    );
    try {
      expect(await toolNames(conn.client)).toEqual(LOOM);
    } finally {
      await conn.close();
    }
  });

  it('the capability response lists loom_compose, loom_inspect and loom_authoring_context as parent tools [LA-09]', async () => {
    const r = await runCli(['capabilities', '--json', '--no-embedded'], { home: home() });
    expect(r.code).toBe(0);
    const v = json(r.stdout);
    expect(v.parentTools).toEqual([...COMMAND, ...LOOM]);
    const loom = (v.tools as { name: string; needs: string; available: boolean }[]).filter((t) =>
      LOOM.includes(t.name),
    );
    expect(loom.map((t) => [t.name, t.needs, t.available])).toEqual(
      LOOM.map((n) => [n, '--loom-authoring-config', false]),
    );
    const configured = await runCli(['capabilities', '--json', '--loom-authoring-config', authoringCfg], {
      home: home(),
    });
    const available = (json(configured.stdout).tools as { name: string; available: boolean }[])
      .filter((t) => t.available)
      .map((t) => t.name);
    expect(available).toEqual(LOOM);
  });

  it('a run-manifest grant without the config leaves the Loom tools unavailable (left out with a warning) [LA-10]', async () => {
    const manifest = join(hostDir, 'manifest-la10.json');
    writeFileSync(manifest, JSON.stringify({ allowTools: ['list_commands', ...LOOM] }));
    const conn = await connectStdio(['--loom-commands-config', commandsCfg, '--manifest', manifest], home());
    try {
      expect(await toolNames(conn.client)).toEqual(['list_commands']);
      expect(conn.stderr()).toContain(
        'run manifest grants loom_compose, but it needs --loom-authoring-config',
      );
    } finally {
      await conn.close();
    }
    const r = await call([
      'loom_compose',
      '{}',
      '--loom-commands-config',
      commandsCfg,
      '--manifest',
      manifest,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no tool 'loom_compose' in this session");
  });
});

describe('Fabric binding, CFC mode and ceiling in the interactive entrypoint', () => {
  const fabric = [
    '--fabric-api-url',
    'https://fabric.example',
    '--fabric-identity',
    'did:key:me',
    '--fabric-space',
    'did:key:space',
  ];

  it('harness serve accepts --fabric-api-url, --fabric-identity and --fabric-space [LA-11]', async () => {
    const conn = await connectStdio(['--loom-authoring-config', authoringCfg, ...fabric], home());
    try {
      expect(await toolNames(conn.client)).toEqual(LOOM);
      // A token the session does not hold is refused by the bound resolver before any write.
      const res = await conn.client.callTool({
        name: 'loom_compose',
        arguments: { request_id: 'la-11', components: [{ pattern_token: 'ptok-unknown' }] },
      });
      expect(get(res, 'structuredContent', 'status')).toBe('refused');
    } finally {
      await conn.close();
    }
  });

  it('they default to CF_HARNESS_FABRIC_API_URL, CF_HARNESS_FABRIC_IDENTITY and CF_HARNESS_FABRIC_SPACE [LA-12]', async () => {
    const env = {
      CF_HARNESS_FABRIC_API_URL: 'https://fabric.example',
      CF_HARNESS_FABRIC_IDENTITY: 'did:key:me',
      CF_HARNESS_FABRIC_SPACE: 'did:key:space',
    };
    const conn = await connectStdio(['--loom-authoring-config', authoringCfg], home(), env);
    try {
      expect(await toolNames(conn.client)).toEqual(LOOM);
    } finally {
      await conn.close();
    }
    // One flag plus two variables is a complete binding too.
    const mixed = await runCli(
      ['capabilities', '--loom-authoring-config', authoringCfg, '--fabric-space', 'did:key:other'],
      {
        home: home(),
        env: { CF_HARNESS_FABRIC_API_URL: 'https://f', CF_HARNESS_FABRIC_IDENTITY: 'did:key:me' },
      },
    );
    expect(mixed.code).toBe(0);
  });

  it('a partial Fabric binding fails before the service starts [LA-15]', async () => {
    const instance = join(box.root, 'partial');
    for (const [args, env] of [
      [['--fabric-api-url', 'https://f'], {}],
      [[], { CF_HARNESS_FABRIC_IDENTITY: 'did:key:me', CF_HARNESS_FABRIC_SPACE: 's' }],
    ] as const) {
      const r = await runCli(['serve', '--instance', instance, ...args], { home: home(), env: { ...env } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /a Fabric binding needs all three of --fabric-api-url, --fabric-identity, --fabric-space; missing/,
      );
      expect(existsSync(instance)).toBe(false);
    }
  });

  it('serve and call validate --cfc-mode alike, before start-up, default enforce-explicit [LA-13]', async () => {
    const instance = join(box.root, 'cfc');
    const s = await runCli(['serve', '--cfc-mode', 'lenient', '--instance', instance], { home: home() });
    const c = await call(['list_commands', '--cfc-mode', 'lenient', '--instance', instance]);
    expect([s.code, c.code]).toEqual([2, 2]);
    expect(s.stderr).toBe(c.stderr);
    expect(s.stderr.trim()).toBe(
      "harness: --cfc-mode must be one of disabled, observe, enforce-explicit, enforce-strict, found 'lenient'",
    );
    expect(existsSync(instance)).toBe(false);
    // The default enforces: a context-bound task cannot write, in either entrypoint.
    const write = '{"command":"echo.argv","args":{"value":"w"}}';
    const cDefault = await call([
      'run_command',
      write,
      '--loom-commands-config',
      commandsCfg,
      '--prompt-slot',
      'context',
    ]);
    expect(json(cDefault.stdout).reasonCode).toBe('cfc_write_requires_direct_command');
    const conn = await connectStdio(
      ['--loom-commands-config', commandsCfg, '--prompt-slot', 'context'],
      home(),
    );
    try {
      const res = await conn.client.callTool({ name: 'run_command', arguments: JSON.parse(write) });
      expect(get(res, 'structuredContent')).toMatchObject({
        ok: false,
        code: 'not_authorized',
        reason: 'cfc_write_requires_direct_command',
      });
      // A read stays open to a context-bound task.
      const read = await conn.client.callTool({ name: 'run_read_command', arguments: JSON.parse(write) });
      expect(structured(read).status).toBe('executed');
    } finally {
      await conn.close();
    }
    const observe = await call([
      'run_command',
      write,
      '--loom-commands-config',
      commandsCfg,
      '--prompt-slot',
      'context',
      '--cfc-mode',
      'observe',
    ]);
    expect(json(observe.stdout).status).toBe('executed');
  });

  it('serve and call validate --max-confidentiality alike, before start-up; default none [LA-14]', async () => {
    const instance = join(box.root, 'ceiling');
    const s = await runCli(['serve', '--max-confidentiality', '{"not":"a list"}', '--instance', instance], {
      home: home(),
    });
    const c = await call([
      'list_commands',
      '--max-confidentiality',
      '{"not":"a list"}',
      '--instance',
      instance,
    ]);
    expect([s.code, c.code]).toEqual([2, 2]);
    expect(s.stderr).toBe(c.stderr);
    expect(s.stderr).toMatch(/^harness: --max-confidentiality: /);
    expect(existsSync(instance)).toBe(false);
    const read = '{"command":"echo.argv","args":{"value":"r"}}';
    for (const ceiling of [
      [],
      ['--max-confidentiality', 'team,person'],
      ['--max-confidentiality', '[{"anyOf":["team"]}]'],
    ]) {
      const r = await call(['run_read_command', read, '--loom-commands-config', commandsCfg, ...ceiling]);
      expect(json(r.stdout).status).toBe('executed');
    }
    const manifest = join(hostDir, 'manifest-la14.json');
    writeFileSync(manifest, JSON.stringify({ maxConfidentiality: 7 }));
    const m = await call(['list_commands', '--loom-commands-config', commandsCfg, '--manifest', manifest]);
    expect(m.code).toBe(2);
  });
});
