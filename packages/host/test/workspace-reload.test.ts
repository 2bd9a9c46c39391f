// A running broker follows its workspace file: an edit that loads is served to the calls that start
// after it, one that does not leaves the old workspace served, and a write of the same content does
// nothing. A real broker process (fixtures/reload-broker-main.ts), real files edited as editors do,
// real calls over its socket, the audit rows read from its store.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandAnswer } from '@harness/protocol';
import { brokerList, brokerRun } from '@harness/protocol/client';
import type { AuditEvent } from '@harness/store';
import { replaceFile, tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tailAudit } from '../src/api';
import { initInstance } from '../src/instance';
import { type ReloadingBroker, startReloadingBroker } from './broker-process';

const WORKSPACE = `version: 1
command_packs:
  - id: text
    sandbox: false
    commands:
      - id: echo
        argv: [echo, '{{message}}']
        effects: read
      - id: hold
        argv: [sh, -c, 'read line < "$1"; echo "held $line"', sh, '{{fifo}}']
        effects: read
agents:
  - id: reader
    grants: [pack:text]
`;

/**
 * The workspace without `text.hold`: an edit that widens nothing, so it applies at once (one that
 * widens waits for a person: workspace-accept.test.ts).
 */
const EDITED = WORKSPACE.replace(
  `      - id: hold
        argv: [sh, -c, 'read line < "$1"; echo "held $line"', sh, '{{fifo}}']
        effects: read
`,
  '',
);

type Broker = ReloadingBroker;

let box: ReturnType<typeof tempDir>;
let workspace: string;
let instance: string;
let broker: Broker;

/** Starts the broker process for agent `reader` and resolves once it printed its ready line. */
const startBroker = (): Promise<Broker> => startReloadingBroker(box.path, instance);

/** Replaces the workspace file as an editor does: a new file renamed over the old one. */
const replaceWorkspace = (text: string): void => replaceFile(workspace, text);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The check line with this outcome, parsed, from stdout line `from` on. */
async function check(outcome: string, from = 0): Promise<Record<string, unknown>> {
  const line = await broker.stdout.next((l) => l.includes(`"outcome":"${outcome}"`), from);
  return (JSON.parse(line) as { check: Record<string, unknown> }).check;
}

async function run(command: string, args: Record<string, unknown>): Promise<CommandAnswer> {
  const r = await brokerRun(broker.socket, { command, args });
  if (!r.ok) throw new Error(`no answer: ${JSON.stringify(r)}`);
  return r.value;
}

const workspaceRows = async (): Promise<AuditEvent[]> =>
  (await tailAudit(instance, 200)).filter((e) => e.phase === 'workspace');

beforeEach(async () => {
  box = tempDir('host-reload-');
  workspace = join(box.path, 'workspace.yaml');
  writeFileSync(workspace, WORKSPACE);
  instance = join(box.path, 'instance');
  await initInstance(instance, workspace);
  broker = await startBroker();
});
afterEach(async () => {
  const exited = new Promise((r) => broker.child.once('exit', r));
  broker.child.kill('SIGTERM');
  await exited;
  box.cleanup();
});

describe('a running broker follows its workspace file', () => {
  it('switches to an edit that loads and widens nothing: the audit row holds both digests, the log says so, and a call no longer finds the command removed', async () => {
    replaceWorkspace(EDITED);

    const switched = await broker.stderr.next((l) => l.includes('switched to the edited workspace'));
    expect(switched).toBe(
      `harness broker: switched to the edited workspace ${workspace} (sha256 ${sha256(EDITED).slice(0, 12)}, was ${sha256(WORKSPACE).slice(0, 12)}): 1 pack command(s) for agent:reader; calls already running finish on the old one`,
    );
    const rows = await workspaceRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      run: 'run-1',
      actor: 'host:broker',
      command: '*',
      action: 'host:workspace_reloaded',
      outcome: 'reloaded',
      code: 'ok',
      reason: null,
      payload: {
        path: workspace,
        old_digest: sha256(WORKSPACE),
        new_digest: sha256(EDITED),
        commands: 1,
        how: 'widens_nothing',
      },
    });

    expect((await run('text.hold', { fifo: '/nonexistent' })).code).toBe('unknown_command');
    const listed = await brokerList(broker.socket);
    if (!listed.ok) throw new Error(JSON.stringify(listed));
    const ids = listed.value.commands.map((c) => c.id);
    expect(ids).toContain('text.echo');
    expect(ids).not.toContain('text.hold');
  });

  it('keeps serving the old workspace when an edit does not load, and records the first error and where it is', async () => {
    // Written in place, as an editor that truncates and writes does.
    const broken = WORKSPACE.replace('effects: read', 'effects: reed');
    writeFileSync(workspace, broken);

    const warning = await broker.stderr.next((l) => l.includes('cannot be served'));
    expect(warning).toBe(
      `harness broker: warning: the edited workspace ${workspace} (sha256 ${sha256(broken).slice(0, 12)}) cannot be served, so the old one (sha256 ${sha256(WORKSPACE).slice(0, 12)}) is still served: ${workspace}:8:18: command_packs[0].commands[0].effects: expected effects read or write, found "reed"; e.g. effects: read; see every error with: harness packs check ${workspace}`,
    );

    const rows = await workspaceRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor: 'host:broker',
      action: 'host:workspace_reload_failed',
      outcome: 'failed',
      code: 'workspace_invalid',
      reason: 'schema',
      payload: {
        path: workspace,
        old_digest: sha256(WORKSPACE),
        new_digest: sha256(broken),
        error: {
          message:
            'command_packs[0].commands[0].effects: expected effects read or write, found "reed"; e.g. effects: read',
          where: `${workspace}:8:18`,
        },
        error_count: 1,
      },
    });

    const echo = await run('text.echo', { message: 'still the old one' });
    expect(echo.ok).toBe(true);
    expect(JSON.stringify(echo.body)).toContain('still the old one');
  });

  it('refuses an edit that no longer declares the agent it serves, and keeps its commands', async () => {
    replaceWorkspace(WORKSPACE.replace('- id: reader', '- id: writer'));
    expect((await check('failed')).problem).toEqual({
      code: 'scope_invalid',
      issue: null,
      message: 'scope: agent "reader" is not declared in the workspace; declared agents: writer',
      where: workspace,
      count: 1,
    });
    expect((await workspaceRows()).map((e) => [e.action, e.code])).toEqual([
      ['host:workspace_reload_failed', 'scope_invalid'],
    ]);
    expect((await run('text.echo', { message: 'served' })).ok).toBe(true);
  });

  it('does nothing for a write of the same content', async () => {
    replaceWorkspace(WORKSPACE);
    expect(await check('unchanged')).toEqual({ outcome: 'unchanged', digest: sha256(WORKSPACE) });
    expect(await workspaceRows()).toEqual([]);
    expect(broker.stderr.all.filter((l) => l.includes('workspace'))).toEqual([]);
  });

  it('lets a call in flight finish on the workspace it started on', async () => {
    const fifo = join(box.path, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const held = run('text.hold', { fifo });
    // The write end opens once the command has opened the read end: the call is running.
    const writer = createWriteStream(fifo);
    await new Promise((r) => writer.once('open', r));

    replaceWorkspace(EDITED);
    await check('reloaded');
    writer.end('released\n');
    const answer = await held;
    expect(answer.ok).toBe(true);
    expect(JSON.stringify(answer.body)).toContain('held released');
    // The edit removed the command: a call that starts now does not find it.
    expect((await run('text.hold', { fifo })).code).toBe('unknown_command');
  });

  it('switches again after a failed edit once the file loads', async () => {
    writeFileSync(workspace, 'version: 1\ncommand_packs: [\n');
    const failed = await check('failed');
    expect(failed).toMatchObject({ served: sha256(WORKSPACE), problem: { code: 'workspace_invalid' } });
    replaceWorkspace(EDITED);
    expect(await check('reloaded')).toEqual({
      outcome: 'reloaded',
      from: sha256(WORKSPACE),
      to: sha256(EDITED),
      how: 'widens_nothing',
    });
    expect((await workspaceRows()).map((e) => e.action)).toEqual([
      'host:workspace_reload_failed',
      'host:workspace_reloaded',
    ]);
    expect((await run('text.hold', { fifo: '/nonexistent' })).code).toBe('unknown_command');
  });
});
