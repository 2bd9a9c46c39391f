// The client against the real reference servers from npm, pinned (installed once into a cache
// outside the repository): server-everything over stdio and over streamable HTTP, server-filesystem.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVERYTHING, FILESYSTEM, LINUX, needs, until } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CallProgress, createServerClient, type ServerClient } from '../src/index';
import { installed, serverEnv } from './helpers';

const everything = await installed(EVERYTHING);
const filesystem = await installed(FILESYSTEM);
const bounds = { timeoutMs: 20_000, maxOutputBytes: 64 * 1024 };

function everythingStdio(id: string): ServerClient {
  if (!everything.server.ok) throw new Error(everything.requirement.install);
  return createServerClient({
    id,
    transport: {
      kind: 'stdio',
      command: [process.execPath, everything.server.entry, 'stdio'],
      env: serverEnv(),
      cwd: tmpdir(),
      sandbox: null,
    },
    startTimeoutMs: 20_000,
  });
}

needs(LINUX, everything.requirement).describe('server-everything over stdio', () => {
  let client: ServerClient;
  beforeAll(() => {
    client = everythingStdio('everything');
  });
  afterAll(() => client.close());

  it('lists its tools, without the sampling, elicitation and roots tools a client offering none does not get [SV-16]', async () => {
    const listing = await client.tools();
    expect(listing.ok).toBe(true);
    if (!listing.ok) return;
    const names = listing.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
    expect(names).not.toContain('trigger-sampling-request');
    expect(names).not.toContain('trigger-elicitation-request');
    expect(names).not.toContain('get-roots-list');
    expect(listing.tools.find((t) => t.name === 'echo')?.inputSchema).toMatchObject({ type: 'object' });
  });

  it('echoes a message back as text', async () => {
    expect(await client.call('echo', { message: 'hello, upstream' }, bounds)).toMatchObject({
      status: 'ok',
      text: 'Echo: hello, upstream',
      outputExceeded: false,
    });
  });

  it('adds two numbers', async () => {
    const outcome = await client.call('get-sum', { a: 2, b: 40 }, bounds);
    expect(outcome).toMatchObject({ status: 'ok', text: expect.stringContaining('42') });
  });

  it('summarises an image content as its type and size [SV-15]', async () => {
    const outcome = await client.call('get-tiny-image', {}, bounds);
    expect(outcome.status).toBe('ok');
    if (outcome.status === 'ok') expect(outcome.text).toMatch(/\[image image\/png, \d+ bytes\]/);
  });

  it("forwards a long-running tool's progress notifications as they come", async () => {
    const seen: CallProgress[] = [];
    const outcome = await client.call(
      'trigger-long-running-operation',
      { duration: 0.4, steps: 4 },
      { ...bounds, onProgress: (p) => seen.push(p) },
    );
    expect(outcome).toMatchObject({ status: 'ok', text: expect.stringContaining('Steps: 4') });
    expect(seen).toEqual([1, 2, 3, 4].map((progress) => ({ progress, total: 4 })));
  });

  it('cancels a long-running call upstream past its timeout, and the server answers the next call [SV-14]', async () => {
    const outcome = await client.call(
      'trigger-long-running-operation',
      { duration: 60, steps: 60 },
      { ...bounds, timeoutMs: 300 },
    );
    expect(outcome).toMatchObject({ status: 'timeout', mayHaveLanded: 'unknown' });
    expect(await client.call('echo', { message: 'still here' }, bounds)).toMatchObject({
      status: 'ok',
      text: 'Echo: still here',
    });
  });

  it("cancels a long-running call on the caller's signal once its first progress came", async () => {
    const controller = new AbortController();
    const outcome = await client.call(
      'trigger-long-running-operation',
      { duration: 60, steps: 600 },
      { ...bounds, signal: controller.signal, onProgress: () => controller.abort() },
    );
    expect(outcome).toMatchObject({ status: 'cancelled', mayHaveLanded: 'unknown' });
    expect(await client.call('echo', { message: 'again' }, bounds)).toMatchObject({ status: 'ok' });
  });

  it('answers a call whose server is killed mid-call as died, and the next call after the backoff restarts it [SV-14]', async () => {
    const victim = everythingStdio('everything-victim');
    try {
      expect((await victim.tools()).ok).toBe(true);
      const pid = victim.state().pid as number;
      const pending = victim.call(
        'trigger-long-running-operation',
        { duration: 60, steps: 600 },
        { ...bounds, onProgress: () => process.kill(pid, 'SIGKILL') },
      );
      expect(await pending).toMatchObject({ status: 'died', mayHaveLanded: 'unknown' });
      const next = await until(async () => {
        const o = await victim.call('echo', { message: 'back' }, bounds);
        return o.status === 'ok' && o;
      }, 'a call after the backoff to restart the server');
      expect(next).toMatchObject({ text: 'Echo: back' });
      expect(victim.state()).toMatchObject({ state: 'ready', restarts: 1 });
    } finally {
      await victim.close();
    }
  });
});

/** A port free at the time of asking. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

needs(LINUX, everything.requirement).describe('server-everything over streamable HTTP', () => {
  let stop: () => void = () => {};
  let client: ServerClient;
  beforeAll(async () => {
    if (!everything.server.ok) return;
    const port = await freePort();
    const server = spawn(process.execPath, [everything.server.entry, 'streamableHttp'], {
      env: serverEnv({ PORT: String(port) }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    stop = () => server.kill('SIGKILL');
    let stderr = '';
    server.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await until(
      () => stderr.includes(`listening on port ${port}`),
      () => `the HTTP server to listen (stderr: ${stderr})`,
    );
    client = createServerClient({
      id: 'everything-http',
      transport: {
        kind: 'http',
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { authorization: 'Bearer not-a-real-token' },
      },
      startTimeoutMs: 20_000,
    });
  });
  afterAll(async () => {
    await client?.close();
    stop();
  });

  it('lists and calls over HTTP, saying harness does not confine a server it did not start', async () => {
    const listing = await client.tools();
    expect(listing.ok && listing.tools.some((t) => t.name === 'echo')).toBe(true);
    expect(await client.call('echo', { message: 'over http' }, bounds)).toMatchObject({
      status: 'ok',
      text: 'Echo: over http',
    });
    expect(client.state()).toMatchObject({ state: 'ready', confinement: { confined: false } });
    expect(client.state().pid).toBeUndefined();
  });
});

needs(LINUX, filesystem.requirement).describe('server-filesystem over stdio', () => {
  let root: string;
  let client: ServerClient;
  beforeAll(() => {
    if (!filesystem.server.ok) return;
    root = mkdtempSync(join(tmpdir(), 'harness-servers-fs-'));
    writeFileSync(join(root, 'note.txt'), 'a note');
    client = createServerClient({
      id: 'filesystem',
      transport: {
        kind: 'stdio',
        command: [process.execPath, filesystem.server.entry, root],
        env: serverEnv(),
        cwd: root,
        sandbox: null,
      },
      startTimeoutMs: 20_000,
    });
  });
  afterAll(async () => {
    await client?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('reads a file in its allowed directory, and answers one outside it as a tool error', async () => {
    const listing = await client.tools();
    expect(listing.ok && listing.tools.some((t) => t.name === 'read_text_file')).toBe(true);
    expect(await client.call('read_text_file', { path: join(root, 'note.txt') }, bounds)).toMatchObject({
      status: 'ok',
      text: 'a note',
    });
    expect(await client.call('read_text_file', { path: '/etc/hostname' }, bounds)).toMatchObject({
      status: 'tool_error',
    });
  });
});
