// A stdio server confined through @harness/exec's sandbox plan (bubblewrap): each attack a tool of
// test/fixtures/probe-server.mjs makes fails behind the wall and succeeds without it (sandbox null).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { detectSandbox, type SandboxPolicy } from '@harness/exec';
import { LINUX, needs, processesWith, sandboxMechanism, until } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallOutcome, createServerClient, type ServerClient } from '../src/index';
import { fixtureSpec, gone } from './helpers';

const bounds = { timeoutMs: 15_000, maxOutputBytes: 64 * 1024 };

function listen(server: Server, where: number | string): Promise<void> {
  return new Promise((resolve) => server.listen(where, resolve));
}

function greeter(): Server {
  return createServer((socket) => socket.end('hello from the host'));
}

const text = (o: CallOutcome) => ('text' in o ? `${o.status}: ${o.text}` : `${o.status}: ${o.message}`);

needs(LINUX, sandboxMechanism(detectSandbox())).describe('a confined stdio server', () => {
  // Outside /tmp (a confined run's /tmp is its own), so only the policy's rules stand in the way.
  let scratch: string;
  let tcp: Server;
  let unix: Server;
  let port: number;
  let socketPath: string;
  let confined: ServerClient;
  let open: ServerClient;
  const marker = `harness-servers-private-tmp-${process.pid}`;

  beforeAll(async () => {
    const parent = join(homedir(), '.cache', 'harness-servers-test');
    mkdirSync(parent, { recursive: true });
    scratch = mkdtempSync(join(parent, 'wall-'));
    mkdirSync(join(scratch, 'secret'));
    writeFileSync(join(scratch, 'secret', 'key'), 'the secret key');
    tcp = greeter();
    await listen(tcp, 0);
    port = (tcp.address() as { port: number }).port;
    socketPath = join(scratch, 'agent.sock');
    unix = greeter();
    await listen(unix, socketPath);
    const policy: SandboxPolicy = { deny: [join(scratch, 'secret')] };
    confined = createServerClient(fixtureSpec('walled', 'probe-server.mjs', { sandbox: policy }));
    open = createServerClient(fixtureSpec('open', 'probe-server.mjs', { sandbox: null }));
  });

  afterAll(async () => {
    await Promise.all([confined.close(), open.close()]);
    tcp.close();
    unix.close();
    rmSync(scratch, { recursive: true, force: true });
    rmSync(join('/tmp', marker), { force: true });
  });

  it('starts confined by bubblewrap with no network, Unix sockets refused by seccomp, and says so [SV-12]', async () => {
    expect((await confined.tools()).ok).toBe(true);
    expect(confined.state().confinement).toMatchObject({
      confined: true,
      mechanism: 'bwrap',
      network: 'none',
      pidNamespace: true,
      deny: [join(scratch, 'secret')],
      unixSockets: { allowed: [], enforcedBy: 'seccomp' },
    });
  });

  it('hides a denied path from a confined server; unconfined the same read gets the secret [SV-12]', async () => {
    const path = join(scratch, 'secret', 'key');
    // A denied directory shows as empty: the file is not there.
    expect(text(await confined.call('read-file', { path }, bounds))).toBe('tool_error: failed: ENOENT');
    expect(text(await open.call('read-file', { path }, bounds))).toBe('ok: read: the secret key');
  });

  it('keeps the filesystem read-only for a confined server; unconfined the write lands [SV-12]', async () => {
    const path = join(scratch, 'written');
    expect(text(await confined.call('write-file', { path }, bounds))).toMatch(
      /^tool_error: failed: E(ROFS|ACCES|PERM)/,
    );
    expect(existsSync(path)).toBe(false);
    expect(text(await open.call('write-file', { path }, bounds))).toBe(`ok: wrote: ${path}`);
    expect(existsSync(path)).toBe(true);
  });

  it("gives a confined server a private /tmp: what it writes there never reaches the host's [SV-12]", async () => {
    const path = join('/tmp', marker);
    expect(text(await confined.call('write-file', { path }, bounds))).toBe(`ok: wrote: ${path}`);
    expect(existsSync(path)).toBe(false);
  });

  it("keeps a confined server off the host's loopback; unconfined it connects [SV-12]", async () => {
    // Its own network namespace: its loopback has no listener on the host's port.
    expect(text(await confined.call('tcp-connect', { port }, bounds))).toBe(
      'tool_error: failed: ECONNREFUSED',
    );
    expect(text(await open.call('tcp-connect', { port }, bounds))).toBe('ok: connected: hello from the host');
  });

  it('refuses a confined server any Unix socket; unconfined it connects [SV-12]', async () => {
    // seccomp refuses socket(AF_UNIX) itself, wherever the socket lies.
    expect(text(await confined.call('unix-connect', { path: socketPath }, bounds))).toBe(
      'tool_error: failed: EPERM',
    );
    expect(text(await open.call('unix-connect', { path: socketPath }, bounds))).toBe(
      'ok: connected: hello from the host',
    );
  });

  it("ends a confined server's whole pid namespace on close, its children included", async () => {
    const client = createServerClient(fixtureSpec('walled-tree', 'probe-server.mjs', { sandbox: {} }));
    expect((await client.tools()).ok).toBe(true);
    const pid = client.state().pid as number;
    // The child's pid is the namespace's: on the host it is found by the tag in its argv.
    const tag = `harness-servers-walled-child-${process.pid}`;
    expect(await client.call('spawn-child', { tag }, bounds)).toMatchObject({ status: 'ok' });
    expect(processesWith(tag)).toHaveLength(1);
    await client.close();
    await until(() => gone(pid) && processesWith(tag).length === 0, 'bwrap and the child to be gone');
  });
});

describe('a server whose spec asks no sandbox', () => {
  it('is reported unconfined, saying why, before it starts', () => {
    const client = createServerClient(fixtureSpec('plain', 'probe-server.mjs'));
    expect(client.state().confinement).toEqual({
      confined: false,
      reason: 'the server spec asks for no sandbox',
    });
  });
});
