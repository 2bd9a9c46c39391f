// No process the agent started can change what a running broker serves: an edit of the workspace
// file that widens authority is held, the old workspace served, until a person accepts exactly that
// content; one that widens nothing applies at once. A real broker process
// (fixtures/reload-broker-main.ts), the workspace file overwritten by this test (unconfined: it
// stands for the agent's code), real calls over the broker's socket, the audit read from its store.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandAnswer } from '@harness/protocol';
import { brokerList, brokerRun } from '@harness/protocol/client';
import { replaceFile, tempDir } from '@harness/test-utils';
import { loadWorkspace } from '@harness/workspace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tailAudit } from '../src/api';
import { initInstance } from '../src/instance';
import {
  ACCEPTED_FILE,
  acceptWorkspace,
  PENDING_FILE,
  readPending,
  rejectWorkspace,
  reviewWorkspace,
} from '../src/workspace-acceptance';
import { compareAuthority } from '../src/workspace-authority';
import { type ReloadingBroker, startReloadingBroker } from './broker-process';

const WORKSPACE = `version: 1
command_packs:
  - id: text
    sandbox: false
    commands:
      - id: echo
        argv: [echo, '{{message}}']
        effects: read
      - id: upper
        argv: [echo, UPPER]
        effects: read
agents:
  - id: reader
    grants: [pack:text]
`;

/** The attack: an open, unconfined pack of `sh -c` granted to the agent, copied over the file. */
const ATTACK = WORKSPACE.replace(
  'agents:\n',
  `  - id: sh
    permission: open
    sandbox: false
    commands:
      - id: run
        argv: [sh, -c, '{{script}}']
        effects: write
agents:
`,
).replace('grants: [pack:text]', 'grants: [pack:text, sh.run]');

/** The workspace without `text.upper`: it widens nothing. */
const NARROWED = WORKSPACE.replace(
  '      - id: upper\n        argv: [echo, UPPER]\n        effects: read\n',
  '',
);

type Broker = ReloadingBroker;

let box: ReturnType<typeof tempDir>;
let workspace: string;
let instance: string;
let broker: Broker | undefined;

const startBroker = (): Promise<Broker> => startReloadingBroker(box.path, instance);

async function stopBroker(): Promise<void> {
  if (broker === undefined) return;
  const { child } = broker;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  broker = undefined;
}

function the(b: Broker | undefined): Broker {
  if (b === undefined) throw new Error('no broker running');
  return b;
}

/** Replaces the workspace file as a recipe's `cp` or an editor does: a new file renamed over it. */
const replaceWorkspace = (text: string): void => replaceFile(workspace, text);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The check line with this outcome, parsed, from stdout line `from` on. */
async function check(outcome: string, from = 0): Promise<Record<string, unknown>> {
  const line = await the(broker).stdout.next((l) => l.includes(`"outcome":"${outcome}"`), from);
  return (JSON.parse(line) as { check: Record<string, unknown> }).check;
}

async function run(command: string, args: Record<string, unknown>): Promise<CommandAnswer> {
  const r = await brokerRun(the(broker).socket, { command, args });
  if (!r.ok) throw new Error(`no answer: ${JSON.stringify(r)}`);
  return r.value;
}

async function listed(): Promise<string[]> {
  const r = await brokerList(the(broker).socket);
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.value.commands.map((c) => c.id);
}

const workspaceRows = async () => (await tailAudit(instance, 200)).filter((e) => e.phase === 'workspace');

beforeEach(async () => {
  box = tempDir('host-accept-');
  workspace = join(box.path, 'workspace.yaml');
  writeFileSync(workspace, WORKSPACE);
  instance = join(box.path, 'instance');
  await initInstance(instance, workspace);
  broker = await startBroker();
});
afterEach(async () => {
  await stopBroker();
  box.cleanup();
});

describe('a workspace edit that widens authority waits for a person', () => {
  it('keeps serving the old grants when a process copies an open, unconfined sh -c pack over the workspace, until a person accepts that content [SEC-23]', async () => {
    const b = the(broker);
    replaceWorkspace(ATTACK);
    const held = await check('held');
    expect(held).toEqual({
      outcome: 'held',
      served: sha256(WORKSPACE),
      digest: sha256(ATTACK),
      widenings: [
        'agent reader: grants sh.run (new)',
        'agent reader: runs sh.run: argv [sh, -c, {{script}}], tier open, effects write, unconfined (new)',
      ],
    });
    const line = await b.stderr.next((l) => l.includes('widens what agents may do'));
    expect(line).toContain(
      `harness workspace accept --hash ${sha256(ATTACK).slice(0, 12)} --instance ${instance}`,
    );

    // The attack is refused: the command is neither listed nor runnable.
    expect(await listed()).not.toContain('sh.run');
    const refused = await run('sh.run', { script: 'echo pwned' });
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused)).not.toContain('pwned');
    expect((await run('text.echo', { message: 'old grants' })).ok).toBe(true);

    // The held edit is recorded beside the instance and in the audit chain.
    expect(readPending(instance)).toMatchObject({ digest: sha256(ATTACK), served: sha256(WORKSPACE) });
    const rows = await workspaceRows();
    expect(rows.map((e) => [e.action, e.outcome, e.code])).toEqual([
      ['host:workspace_held', 'held', 'acceptance_required'],
    ]);
    expect(rows[0]?.payload).toMatchObject({ old_digest: sha256(WORKSPACE), new_digest: sha256(ATTACK) });

    // A person accepts exactly what was shown: the running broker serves it without a restart.
    const accepted = await acceptWorkspace(instance, {
      hash: sha256(ATTACK).slice(0, 12),
      by: 'person:test',
    });
    expect(accepted.ok).toBe(true);
    expect(await check('reloaded')).toEqual({
      outcome: 'reloaded',
      from: sha256(WORKSPACE),
      to: sha256(ATTACK),
      how: 'accepted',
    });
    expect(await listed()).toContain('sh.run');
    const ran = await run('sh.run', { script: 'echo accepted' });
    expect(ran.ok).toBe(true);
    expect(existsSync(join(instance, PENDING_FILE))).toBe(false);
    expect((await workspaceRows()).map((e) => [e.action, e.actor])).toEqual([
      ['host:workspace_held', 'host:broker'],
      ['host:workspace_accepted', 'person:test'],
      ['host:workspace_reloaded', 'host:broker'],
    ]);
  });

  it('without the hold the same file would be served: it loads and grants the agent sh -c (the old reload switched to any edit that loads) [SEC-23]', async () => {
    const loaded = await loadWorkspace({ file: workspace, text: ATTACK }, { probe: false });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    expect(loaded.workspace.agents.find((a) => a.id === 'reader')?.commands).toContain('sh.run');
    const before = await loadWorkspace({ file: workspace, text: WORKSPACE }, { probe: false });
    if (!before.ok) throw new Error('the base does not load');
    // What decides the hold: the comparison finds the grant.
    expect(compareAuthority(before.workspace, loaded.workspace).widenings.length).toBeGreaterThan(0);
  });

  it('applies an edit that only narrows at once, with nobody asked [SEC-23]', async () => {
    replaceWorkspace(NARROWED);
    expect(await check('reloaded')).toMatchObject({ to: sha256(NARROWED), how: 'widens_nothing' });
    expect(await listed()).not.toContain('text.upper');
    // The narrowed content is now the accepted one: widening back to the old file waits.
    expect(JSON.parse(readFileSync(join(instance, ACCEPTED_FILE), 'utf8'))).toMatchObject({
      digest: sha256(NARROWED),
      how: 'narrowing',
    });
    replaceWorkspace(WORKSPACE);
    expect(await check('held')).toMatchObject({
      digest: sha256(WORKSPACE),
      widenings: [
        'agent reader: runs text.upper: argv [echo, UPPER], tier cautious, effects read, unconfined (new)',
      ],
    });
  });

  it('refuses an acceptance whose hash is not the file now: the file changed after it was shown [SEC-23]', async () => {
    replaceWorkspace(ATTACK);
    await check('held');
    const shown = sha256(ATTACK).slice(0, 12);
    const again = ATTACK.replace("'{{script}}'", "'{{script}}', extra");
    replaceWorkspace(again);
    await the(broker).stdout.next((l) => l.includes(sha256(again)));
    const decision = await acceptWorkspace(instance, { hash: shown, by: 'person:test' });
    expect(decision).toEqual({
      ok: false,
      code: 'changed',
      message: `${workspace} changed since sha256 ${shown} was shown: it is now sha256 ${sha256(again).slice(0, 12)}, so nothing was decided; review it anew with harness workspace pending --instance ${instance}`,
    });
    expect(await listed()).not.toContain('sh.run');
  });

  it('applies a narrowing edit that replaces a held widening, and forgets the held one [SEC-23]', async () => {
    replaceWorkspace(ATTACK);
    await check('held');
    replaceWorkspace(NARROWED);
    expect(await check('reloaded')).toMatchObject({ to: sha256(NARROWED), how: 'widens_nothing' });
    expect(readPending(instance)).toBeUndefined();
    expect((await reviewWorkspace(instance)).state).toBe('accepted');
  });

  it('writes the accepted content back when a person rejects the held edit [SEC-23]', async () => {
    replaceWorkspace(ATTACK);
    await check('held');
    const decision = await rejectWorkspace(instance, { by: 'person:test' });
    expect(decision).toMatchObject({ ok: true, restored: true });
    expect(readFileSync(workspace, 'utf8')).toBe(WORKSPACE);
    await the(broker).stderr.next((l) => l.includes('is again the one served'));
    expect((await workspaceRows()).map((e) => e.action)).toEqual([
      'host:workspace_held',
      'host:workspace_rejected',
    ]);
  });

  it('holds a widening file at start: a broker started on it serves the content last accepted, and switches once a person accepts [SEC-23]', async () => {
    await stopBroker();
    replaceWorkspace(ATTACK);
    broker = await startBroker();
    expect(await check('held')).toMatchObject({ served: sha256(WORKSPACE), digest: sha256(ATTACK) });
    await the(broker).stderr.next((l) => l.includes('differs from the one last accepted for this instance'));
    expect(await listed()).not.toContain('sh.run');
    expect((await run('sh.run', { script: 'echo pwned' })).ok).toBe(false);

    const review = await reviewWorkspace(instance);
    expect(review.state).toBe('pending');
    expect((await acceptWorkspace(instance, { hash: sha256(ATTACK), by: 'person:test' })).ok).toBe(true);
    expect(await check('reloaded')).toMatchObject({ to: sha256(ATTACK), how: 'accepted' });
    expect(await listed()).toContain('sh.run');
  });
});
