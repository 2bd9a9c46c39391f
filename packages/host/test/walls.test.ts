// The sandbox's walls, attacked from inside a confined read command whose script the attacker
// wrote (a test suite from a pull request, a `sh -c` a pack author allowed), against real brokers,
// real instances, a real PostgreSQL socket and real credential files. Every "cannot" has its "can"
// beside it, so a wall that stops everything (or nothing) fails here.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { BROKER_PROTOCOL } from '@harness/protocol';
import { brokerRun } from '@harness/protocol/client';
import { openStoreTarget } from '@harness/store';
import { findBinary, needs, sandboxMechanism, tempDir } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningBroker, startBroker } from '../src/api';
import { initInstance, readInstance } from '../src/instance';
import { instanceRegistryFile, knownInstances } from '../src/instance-registry';

const sandbox = sandboxMechanism(detectSandbox());
const sandboxed = needs(sandbox);

const workspaceText = (socket: string) => `version: 1
command_packs:
  - id: probe
    commands:
      - id: sh
        argv: [sh, -c, '{{script}}']
        effects: read
      - id: sock
        argv: [sh, -c, '{{script}}']
        effects: read
        sandbox: { unix_sockets: ['${socket}'] }
      - id: socknet
        argv: [sh, -c, '{{script}}']
        effects: read
        sandbox: { unix_sockets: ['${socket}'], network: host }
  - id: unconfined
    permission: open
    commands:
      - id: sh
        argv: [sh, -c, '{{script}}']
        effects: write
  - id: text
    permission: open
    permission_overrides:
      shout: strict
    commands:
      - id: touch
        argv: [touch, '--', '{{file}}']
        effects: write
      - id: shout
        argv: [echo, '{{message}}']
        effects: write
agents:
  - id: coder
    grants: [pack:probe, unconfined.sh, text.touch, text.shout]
`;

// Outside /tmp: a confined run has a private /tmp of its own, which would hide these for the wrong
// reason. HOME and the XDG directories point here while the brokers load their workspaces.
const root = tempDir('host-walls-', '/var/tmp');
const home = join(root.path, 'home');
const runtime = join(root.path, 'runtime');
const saved = {
  HOME: process.env.HOME,
  XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR,
  XDG_STATE_HOME: process.env.XDG_STATE_HOME,
};

// Credential files of the tools people use, each with a line the attacker would want.
const CREDENTIAL_FILES = [
  '.pgpass',
  '.config/git/credentials',
  '.git-credentials',
  '.netrc',
  '.docker/config.json',
  '.kube/config',
  '.config/gh/hosts.yml',
  '.aws/credentials',
  '.azure/accessTokens.json',
  '.config/gcloud/credentials.db',
  '.config/doctl/config.yaml',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.claude/.credentials.json',
  '.codex/auth.json',
];

let mine: RunningBroker;
let other: RunningBroker;
let otherInstance: string;
let ownSocket: string;

beforeAll(async () => {
  if (!sandboxed.runs) return;
  process.env.HOME = home;
  process.env.XDG_RUNTIME_DIR = runtime;
  process.env.XDG_STATE_HOME = join(home, '.local', 'state');
  for (const file of CREDENTIAL_FILES) {
    mkdirSync(dirname(join(home, file)), { recursive: true });
    writeFileSync(join(home, file), `stolen ${file}\n`);
  }
  writeFileSync(join(home, 'notes.txt'), 'public notes\n');
  const workspace = join(root.path, 'workspace.yaml');
  ownSocket = join(runtime, 'harness', `broker-${process.pid}.sock`);
  writeFileSync(workspace, workspaceText(ownSocket));
  // Another instance of the same user, with a token and credentials, and a broker of its own.
  otherInstance = join(root.path, 'other');
  await initInstance(otherInstance, workspace);
  writeFileSync(join(otherInstance, 'http-token'), 'stolen http-token\n', { mode: 0o600 });
  writeFileSync(join(otherInstance, 'credentials.json'), '{"stolen": "credentials"}\n', { mode: 0o600 });
  other = await startBroker({
    instanceDir: otherInstance,
    socketPath: join(otherInstance, 'run', 'broker.sock'),
    scope: { run: 'other-run', agent: 'coder' } as never,
  });
  // This instance's broker socket lives where a too-long instance path puts it: the runtime dir.
  const instance = join(root.path, 'mine');
  await initInstance(instance, workspace);
  mkdirSync(join(runtime, 'harness'), { recursive: true, mode: 0o700 });
  mine = await startBroker({
    instanceDir: instance,
    socketPath: ownSocket,
    scope: { run: 'run-1', agent: 'coder' } as never,
  });
});

afterAll(async () => {
  await mine?.close();
  await other?.close();
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  root.cleanup();
});

/** Runs `script` as `command` (the confined read command `probe.sh` by default) through this instance's broker. */
async function probe(script: string, command = 'probe.sh'): Promise<string> {
  const r = await brokerRun(mine.socketPath, { command, args: { script } });
  if (!r.ok) throw new Error(`the broker did not answer: ${JSON.stringify(r.failure)}`);
  const answer = r.value as { ok: boolean; body?: { stdout?: string; output?: string } };
  const body = answer.body as Record<string, unknown>;
  return String(body.stdout ?? body.output ?? JSON.stringify(body));
}

// A Node script that connects to a broker socket and asks it to run `command` with `args`; it
// prints the broker's answer, or why it could not connect.
function brokerAttack(socket: string, command: string, args: Record<string, unknown>): string {
  const request = JSON.stringify({ protocol: BROKER_PROTOCOL, id: 'x', op: 'run', command, args });
  const js =
    `const s=require('net').connect(${JSON.stringify(socket)});` +
    `s.on('connect',()=>{s.write(${JSON.stringify(`${request}\n`)});s.on('data',d=>{process.stdout.write('answered: '+d);s.end()})});` +
    `s.on('error',e=>console.log('refused: '+e.code))`;
  return `${JSON.stringify(process.execPath)} -e ${shellQuote(js)}`;
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

sandboxed.describe('the sandbox walls of a confined command', () => {
  it('cannot reach its own broker in the runtime directory to run a write, which lands unconfined otherwise [SEC-15] [SEC-17]', async () => {
    const target = join(root.path, 'landed-own');
    const out = await probe(
      `ls -A ${shellQuote(dirname(ownSocket))}; ${brokerAttack(ownSocket, 'text.touch', { file: target })}`,
    );
    expect(out).toBe('refused: EPERM\n');
    expect(existsSync(target)).toBe(false);
    // The same request from outside the sandbox runs: the wall, not the broker, stopped it.
    const direct = await brokerRun(ownSocket, { command: 'text.touch', args: { file: target } });
    expect(direct.ok && direct.value.ok).toBe(true);
    expect(existsSync(target)).toBe(true);
  });

  it("cannot drive another instance's broker nor queue an approval in its agent's name [SEC-15] [SEC-17]", async () => {
    const socket = join(otherInstance, 'run', 'broker.sock');
    const out = await probe(
      `ls -A ${shellQuote(otherInstance)}; ${brokerAttack(socket, 'text.shout', { message: 'forged' })}`,
    );
    expect(out).toBe('refused: EPERM\n');
    const store = await openStoreTarget(readInstance(otherInstance).store);
    try {
      expect(await store.listApprovals({ status: 'all' })).toEqual([]);
    } finally {
      await store.close();
    }
    // From outside the sandbox, the same request queues one: the wall stopped it.
    const direct = await brokerRun(socket, { command: 'text.shout', args: { message: 'forged' } });
    expect(direct.ok && direct.value.reason).toBe('approval_required');
  });

  it('cannot read any credential file of the user, nor another instance’s token and credentials, nor anything else of the home [SEC-17] [SEC-21]', async () => {
    const files = [
      ...CREDENTIAL_FILES.map((file) => join(home, file)),
      join(otherInstance, 'http-token'),
      join(otherInstance, 'credentials.json'),
    ];
    const out = await probe(
      `cat ${shellQuote(join(home, 'notes.txt'))}; for f in ${files.map(shellQuote).join(' ')}; do cat "$f" 2>/dev/null; done; echo end`,
    );
    // The home is hidden but for the toolchains: a plain file there is not readable either.
    expect(out).toBe('end\n');
    expect(readFileSync(join(home, 'notes.txt'), 'utf8')).toBe('public notes\n');
    // Unconfined, every one of them is there to read.
    for (const file of files) expect(readFileSync(file, 'utf8')).toMatch(/stolen/);
  });

  for (const [command, network, why] of [
    [
      'probe.sock',
      'its own network',
      /the connecting process is in another network namespace \(inside a sandbox\)$/,
    ],
    [
      'probe.socknet',
      "the host's network",
      /the connecting process \(pid \d+\) is inside a sandbox \(another pid namespace\)/,
    ],
  ] as const) {
    it(`is refused by its broker from inside a sandbox with ${network}, even where unix_sockets lets it connect [SEC-16]`, async () => {
      const target = join(root.path, `landed-${command}`);
      const out = await probe(brokerAttack(ownSocket, 'text.touch', { file: target }), command);
      expect(JSON.parse(out.replace(/^answered: /, ''))).toMatchObject({
        ok: false,
        error: { code: 'forbidden', message: expect.stringMatching(why) },
      });
      expect(existsSync(target)).toBe(false);
    });
  }

  it('is refused by its broker when an unconfined command it runs calls back [SEC-16]', async () => {
    const target = join(root.path, 'landed-unconfined');
    const out = await probe(brokerAttack(ownSocket, 'text.touch', { file: target }), 'unconfined.sh');
    expect(JSON.parse(out.replace(/^answered: /, ''))).toMatchObject({
      ok: false,
      error: {
        code: 'forbidden',
        message: expect.stringMatching(/belongs to a command this broker is running \(pid \d+\)/),
      },
    });
    expect(existsSync(target)).toBe(false);
  });

  it('hides every instance the user has opened, recorded in the registry [SEC-17]', () => {
    expect(instanceRegistryFile()).toBe(join(home, '.local', 'state', 'harness', 'instances'));
    expect(knownInstances()).toEqual(expect.arrayContaining([otherInstance, join(root.path, 'mine')]));
  });
});

const psql = findBinary('psql');
const pgSocketDir = ['/var/run/postgresql', '/run/postgresql'].find((dir) => existsSync(dir));

needs(sandbox, 'psql', {
  what: 'a local PostgreSQL socket (/var/run/postgresql)',
  present: pgSocketDir !== undefined,
  install: 'apt-get install postgresql (docs/host.md, "Several hosts")',
}).describe('the sandbox walls and a local PostgreSQL', () => {
  const table = `harness_forged_${process.pid}`;
  const sql = (statement: string) => [
    '-h',
    pgSocketDir as string,
    '-d',
    'test',
    '-v',
    'ON_ERROR_STOP=1',
    '-tAc',
    statement,
  ];

  it('cannot write the store’s database through its local socket, which an unconfined psql can [SEC-15] [SEC-17]', async () => {
    const out = await probe(
      `${[psql as string, ...sql(`create table ${table} (x int)`)].map(shellQuote).join(' ')} 2>&1 | head -c 300; echo '--- ls'; ls -A ${shellQuote(pgSocketDir as string)}`,
    );
    // The socket directory shows empty, and its socket could not be opened anyway.
    expect(out).toMatch(/could not create socket: Operation not permitted\n--- ls\n$/);
    const exists = () =>
      execFileSync(psql as string, sql(`select count(*) from pg_tables where tablename = '${table}'`), {
        encoding: 'utf8',
      }).trim();
    expect(exists()).toBe('0');
    execFileSync(psql as string, sql(`create table ${table} (x int)`));
    expect(exists()).toBe('1');
    execFileSync(psql as string, sql(`drop table ${table}`));
  });
});
