// Which instance `loom`'s operator commands work on without --instance: the one harness uses
// ($HARNESS_HOME, else ~/.local/share/harness/default). Real bin, real SQLite instance, a real broker
// and a real strict call, so a pending approval exists to list and approve.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BrokerProcess, killBrokers, loom, startBrokerProcess } from './cli';

const WORKSPACE = `version: 1
command_packs:
  - id: text
    permission: strict
    commands:
      - id: echo
        argv: [echo, '{{message}}']
        effects: read
agents:
  - id: editor
    grants: [text.echo]
`;

let t: { path: string; cleanup: () => void };
const brokers: BrokerProcess[] = [];

beforeEach(() => {
  t = tempDir('loom-instance-');
  writeFileSync(join(t.path, 'workspace.yaml'), WORKSPACE);
  writeFileSync(join(t.path, 'scope.yaml'), 'run: run-1\nagent: editor\n');
});
afterEach(async () => {
  await killBrokers(brokers);
  t.cleanup();
});

/** Creates an instance at `dir`, serves it with a broker, and makes one strict call; the approval's id. */
async function pendingApproval(dir: string): Promise<string> {
  const init = await loom(['init', dir, '--workspace', join(t.path, 'workspace.yaml')]);
  expect(init.code, init.stderr).toBe(0);
  const socket = join(t.path, 'b.sock');
  brokers.push(await startBrokerProcess(dir, socket, join(t.path, 'scope.yaml')));
  const call = await loom(['command', 'run', 'text.echo', '--args-json', '-', '--json'], {
    env: { LOOM_PAGE_RPC_QUEUE: socket },
    stdin: JSON.stringify({ message: 'hello' }),
  });
  expect(call.json()).toMatchObject({ ok: false, reason: 'approval_required' });
  return (call.json().body as { approval: { id: string } }).approval.id;
}

const listedIds = (stdout: string) =>
  (JSON.parse(stdout) as { approvals: { id: string; status: string }[] }).approvals.map((a) => [
    a.id,
    a.status,
  ]);

describe('loom chooses the instance as harness does', () => {
  it('with HARNESS_HOME set and no --instance, lists and approves the approvals of that instance', async () => {
    const home = join(t.path, 'harness-home');
    const id = await pendingApproval(home);
    // HOME points elsewhere: only HARNESS_HOME can lead loom to the instance.
    const env = { HARNESS_HOME: home, HOME: join(t.path, 'nobody') };
    const listed = await loom(['approvals', 'list', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listedIds(listed.stdout)).toEqual([[id, 'pending']]);
    const approved = await loom(['approvals', 'approve', id], { env });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout.split('\n')[0]).toMatch(
      new RegExp(`^${id} approved: the identical call may run once, until \\d{4}-`),
    );
    const all = await loom(['approvals', 'list', '--all', '--json', '--instance', home]);
    expect(listedIds(all.stdout)).toEqual([[id, 'approved']]);
  });

  it('with neither --instance nor HARNESS_HOME, works on ~/.local/share/harness/default of HOME', async () => {
    const home = join(t.path, 'home');
    const dir = join(home, '.local', 'share', 'harness', 'default');
    mkdirSync(join(home, '.local', 'share', 'harness'), { recursive: true });
    const id = await pendingApproval(dir);
    const env = { HOME: home };
    const listed = await loom(['approvals', 'list'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^${id} {2}pending {2}text\\.echo {2}tier strict {2}agent editor {2}run run-1 {2}asked \\d+[smh] ago {2}expires `,
      ),
    );
    const denied = await loom(['approvals', 'deny', id, '--by', 'person:ann'], { env });
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout.split('\n')[0]).toBe(
      `${id} denied: the call will not run; the agent is told a person denied it`,
    );
    const tail = await loom(['audit', 'tail', '--json'], { env });
    expect(tail.code, tail.stderr).toBe(0);
    expect((tail.json().events as { command: string }[]).map((e) => e.command)).toContain('text.echo');
  });

  it('--instance wins over HARNESS_HOME, and an unknown id is named with the command that lists the ids', async () => {
    const dir = join(t.path, 'flagged');
    await pendingApproval(dir);
    const env = { HARNESS_HOME: join(t.path, 'elsewhere') };
    const unknown = await loom(['approvals', 'approve', 'apr-nope', '--instance', dir], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      `loom approvals: no approval has the id apr-nope on the instance ${dir}; the pending ones are listed by \`loom approvals list --instance ${dir}\`\n`,
    );
  });
});
