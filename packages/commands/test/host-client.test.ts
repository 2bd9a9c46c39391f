// The two host clients against the scripted FAKE hosts (see test/helpers/scenario.ts).

import { chmodSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { MAX_PENDING_REQUESTS } from '@harness/protocol';
import { until } from '@harness/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthoringConfig } from '../src/config';
import { createCliHostClient, hostEnvironment, listArgv, runArgv } from '../src/host/cli-client';
import { callWaitMs, DEFAULT_HOST_TIMEOUT_MS, HOST_WAIT_MARGIN_MS } from '../src/host/defaults';
import { createSocketHostClient } from '../src/host/socket-client';
import type { SendOutcome } from '../src/host/types';
import { row, type Scenario, scenario } from './helpers/scenario';

/** True when the call got an answer, of any kind: neither left unsent nor lost. */
const answered = (o: SendOutcome): boolean => o.kind !== 'lost' && o.kind !== 'not_sent';

describe.each(['cli', 'socket'] as const)('the %s host client', (kind) => {
  let sc: Scenario;
  afterEach(async () => sc?.close());

  it('lists the host rows and answers a run with the command layer’s answer', async () => {
    sc = await scenario(kind);
    sc.script({ commands: [row('a.b')] });
    const l = await sc.client.list();
    expect(l).toEqual({ ok: true, listing: { commands: [row('a.b')] } });
    const r = await sc.client.run({ command: 'a.b', args: { x: 1 } });
    expect(r).toMatchObject({ ok: true, id: 'a.b', code: 'ok', body: { echo: { x: 1 } } });
  });

  it('an answer it cannot read after sending is lost (landed unknown) [HC-115]', async () => {
    sc = await scenario(kind);
    sc.script({ commands: [row('a.b')], behaviour: { 'a.b': { mode: 'malformed' } } });
    expect(await sc.client.run({ command: 'a.b', args: {} })).toEqual({ kind: 'lost' });
  });

  it('a host that cannot be reached sends nothing (command_failed) [HC-111]', async () => {
    sc = await scenario(kind, { noBroker: true });
    expect(await sc.client.list()).toEqual({ ok: false, code: 'command_failed' });
    expect(await sc.client.run({ command: 'a.b', args: {} })).toEqual({
      kind: 'not_sent',
      code: 'command_failed',
    });
  });

  it('the job id reaches the host only when supplied [HC-17, HC-18, HC-19]', async () => {
    sc = await scenario(kind, { jobIdEnvVar: 'LOOM_COMMAND_JOB_ID' });
    sc.script({ commands: [row('a.b')], jobIdEnvVar: 'LOOM_COMMAND_JOB_ID' });
    await sc.client.list({ jobId: 'j1' });
    await sc.client.run({ command: 'a.b', args: {} }, { jobId: 'j2' });
    await sc.client.run({ command: 'a.b', args: {} });
    expect(sc.log().map((e) => e.jobId ?? null)).toEqual(['j1', 'j2', null]);
  });

  it('a call whose signal is already aborted is not sent [LA-111]', async () => {
    sc = await scenario(kind);
    const ac = new AbortController();
    ac.abort();
    expect(await sc.client.run({ command: 'a.b', args: {} }, { signal: ac.signal })).toEqual({
      kind: 'not_sent',
      code: 'cancelled',
    });
    expect(sc.log()).toHaveLength(0);
  });

  it('a call already sent settles even when the signal aborts meanwhile [LA-112]', async () => {
    sc = await scenario(kind);
    sc.script({ commands: [row('a.b')], behaviour: { 'a.b': { sleepMs: 300 } } });
    const ac = new AbortController();
    const p = sc.client.run({ command: 'a.b', args: {} }, { signal: ac.signal });
    await until(() => sc.runs().length === 1, 'the call to reach the host');
    ac.abort();
    expect(answered(await p)).toBe(true);
    // The turn's signal alone never asks the host to stop a sent call.
    expect(sc.log().filter((e) => e.op === 'cancel')).toEqual([]);
  });

  it('waits for a command’s own timeout plus the margin, past its configured wait; a row naming none keeps that wait [HC-115]', async () => {
    // Configured to wait 300 ms; the host answers after 900 ms.
    sc = await scenario(kind, { timeoutMs: 300 });
    sc.script({ commands: [row('a.b')], behaviour: { 'a.b': { sleepMs: 900 } } });
    const long = await sc.client.run({ command: 'a.b', args: {} }, { commandTimeoutMs: 1_000 });
    expect(long).toMatchObject({ ok: true });
    expect(await sc.client.run({ command: 'a.b', args: {} })).toEqual({ kind: 'lost' });
  });
});

describe('how long a call waits (callWaitMs)', () => {
  it('is the command’s timeout plus the margin, never less than the configured wait, never past a timer’s range', () => {
    expect(HOST_WAIT_MARGIN_MS).toBe(30_000);
    expect(callWaitMs(DEFAULT_HOST_TIMEOUT_MS, undefined)).toBe(120_000);
    expect(callWaitMs(DEFAULT_HOST_TIMEOUT_MS, 30_000)).toBe(120_000);
    expect(callWaitMs(DEFAULT_HOST_TIMEOUT_MS, 6 * 60_000)).toBe(390_000);
    expect(callWaitMs(10_000, 24 * 3_600_000)).toBe(24 * 3_600_000 + 30_000);
    expect(callWaitMs(10_000, Number.MAX_SAFE_INTEGER)).toBe(2 ** 31 - 1);
  });
});

describe('the socket client, stopping and watching a call', () => {
  let sc: Scenario;
  afterEach(async () => sc?.close());

  it('a stop signal aborted after sending asks the broker to cancel that call, which settles with the broker’s answer', async () => {
    sc = await scenario('socket');
    sc.script({ commands: [row('a.b')], behaviour: { 'a.b': { sleepMs: 400 } } });
    const ac = new AbortController();
    const p = sc.client.run({ command: 'a.b', args: {} }, { stop: ac.signal });
    await until(() => sc.runs().length === 1, 'the call to reach the broker');
    ac.abort();
    expect(answered(await p)).toBe(true);
    const cancels = sc.log().filter((e) => e.op === 'cancel');
    expect(cancels).toHaveLength(1);
    expect(cancels[0]?.target).toEqual(expect.stringMatching(/^c\d+$/));
  });

  it('a stop signal aborted before sending sends nothing [LA-111]', async () => {
    sc = await scenario('socket');
    const ac = new AbortController();
    ac.abort();
    expect(await sc.client.run({ command: 'a.b', args: {} }, { stop: ac.signal })).toEqual({
      kind: 'not_sent',
      code: 'cancelled',
    });
    expect(sc.log()).toEqual([]);
  });

  it('hands the broker’s progress reports to onProgress, having asked for them', async () => {
    sc = await scenario('socket');
    const lines = [
      { elapsedMs: 2000, outputBytes: 0 },
      { elapsedMs: 4000, outputBytes: 512 },
    ];
    sc.script({ commands: [row('a.b')], behaviour: { 'a.b': { progress: lines } } });
    const seen: unknown[] = [];
    const r = await sc.client.run({ command: 'a.b', args: {} }, { onProgress: (p) => seen.push(p) });
    expect(answered(r)).toBe(true);
    expect(seen).toEqual(lines);
    expect(sc.runs()[0]?.progress).toBe(true);
  });
});

describe('the CLI client', () => {
  let sc: Scenario;
  afterEach(async () => sc?.close());

  it('runs over a cleared environment: PATH, the queue and the job id only [HC-12, HC-13, HC-23, LA-27, LA-28]', async () => {
    process.env.LOOM_COMMAND_JOB_ID = 'ambient-job';
    process.env.SECRET_TOKEN = 'must-not-leak';
    try {
      sc = await scenario('cli', { jobIdEnvVar: 'LOOM_COMMAND_JOB_ID' });
      sc.script({ commands: [row('a.b')], jobIdEnvVar: 'LOOM_COMMAND_JOB_ID' });
      await sc.client.run({ command: 'a.b', args: {} });
      await sc.client.run({ command: 'a.b', args: {} }, { jobId: 'given' });
      const [a, b] = sc.runs();
      expect(a?.env).toEqual({ PATH: process.env.PATH, LOOM_PAGE_RPC_QUEUE: sc.queuePath });
      expect(b?.env).toEqual({
        PATH: process.env.PATH,
        LOOM_PAGE_RPC_QUEUE: sc.queuePath,
        LOOM_COMMAND_JOB_ID: 'given',
      });
    } finally {
      delete process.env.LOOM_COMMAND_JOB_ID;
      delete process.env.SECRET_TOKEN;
    }
  });

  it('argv of list and run; arguments on stdin; flags only when asked [HC-24, HC-25, HC-26, HC-27, HC-28, HC-161, LA-29]', () => {
    const config = { cliPath: '/opt/loom', transport: { kind: 'broker' as const, socketPath: '/q' } };
    expect(listArgv(config)).toEqual(['/opt/loom', 'command', 'list', '--json']);
    expect(runArgv(config, { command: 'a.b', args: { x: 1 } })).toEqual([
      '/opt/loom',
      'command',
      'run',
      'a.b',
      '--args-json',
      '-',
      '--json',
    ]);
    expect(runArgv(config, { command: 'a.b', args: {}, loomId: 'l-1', expectedVersion: 2 }, true)).toEqual([
      '/opt/loom',
      'command',
      'run',
      'a.b',
      '--args-json',
      '-',
      '--json',
      '--loom',
      'l-1',
      '--expect',
      '2',
      '--read-only',
    ]);
  });

  it('the args reach the host on stdin, byte for byte [HC-25, LA-29]', async () => {
    sc = await scenario('cli');
    sc.script({ commands: [row('a.b')] });
    const args = { text: '; rm -rf / $(whoami) `id` --flag "q" \\ \n ünï' };
    expect(await sc.client.run({ command: 'a.b', args })).toMatchObject({ body: { echo: args } });
    expect(sc.runs()[0]?.argv).not.toContain(args.text);
  });

  it('a direct call passes --transport direct before the command id and pins instance, run and actor [LA-32, LA-28]', () => {
    const config: AuthoringConfig = {
      cliPath: '/opt/loom',
      transport: { kind: 'direct', instanceDir: '/i', runId: 'weaver', actor: 'agent:cf' },
    };
    expect(runArgv(config, { command: 'loom.inspect', args: {} }).slice(0, 6)).toEqual([
      '/opt/loom',
      'command',
      'run',
      '--transport',
      'direct',
      'loom.inspect',
    ]);
    expect(hostEnvironment(config, undefined)).toEqual({
      PATH: process.env.PATH,
      LOOM_INSTANCE_DIR: '/i',
      LOOM_RUN_ID: 'weaver',
      LOOM_ACTOR: 'agent:cf',
    });
  });

  it('a disappeared broker queue never falls back to direct access [LA-31]', async () => {
    sc = await scenario('cli', { noBroker: true });
    expect(await sc.client.run({ command: 'loom.compose', args: {} })).toEqual({
      kind: 'not_sent',
      code: 'command_failed',
    });
    expect(sc.log()).toHaveLength(0);
  });

  it('a missing executable starts nothing and reads as not sent [HC-33]', async () => {
    const c = createCliHostClient({
      cliPath: '/nonexistent/loom',
      transport: { kind: 'broker', socketPath: '/q' },
    });
    expect(await c.run({ command: 'a', args: {} })).toEqual({ kind: 'not_sent', code: 'command_failed' });
  });

  it('a host killed past the configured timeout reads as lost [HC-115]', async () => {
    sc = await scenario('cli');
    sc.script({ commands: [row('a.b')], behaviour: { 'a.b': { sleepMs: 3000 } } });
    const c = createCliHostClient({ ...sc.config, timeoutMs: 800 });
    expect(await c.run({ command: 'a.b', args: {} })).toEqual({ kind: 'lost' });
  });
});

describe('the socket client', () => {
  let sc: Scenario;
  afterEach(async () => sc?.close());

  it('keeps one connection for many requests', async () => {
    sc = await scenario('socket');
    sc.script({ commands: [row('a.b')] });
    await Promise.all(Array.from({ length: 8 }, () => sc.client.run({ command: 'a.b', args: {} })));
    await sc.client.list();
    expect(sc.broker?.connections).toBe(1);
  });

  it('a dropped connection loses the requests in flight, and the next request reconnects [HC-115]', async () => {
    sc = await scenario('socket');
    sc.script({ commands: [row('a.b'), row('c.d')], behaviour: { 'c.d': { mode: 'drop' } } });
    expect(await sc.client.run({ command: 'c.d', args: {} })).toEqual({ kind: 'lost' });
    expect(answered(await sc.client.run({ command: 'a.b', args: {} }))).toBe(true);
    expect(sc.broker?.connections).toBe(2);
  });

  it("a call beyond the client's pending bound is not sent: busy, never lost", async () => {
    sc = await scenario('socket');
    sc.script({ commands: [row('a.b')], behaviour: { 'a.b': { sleepMs: 300 } } });
    const outcomes = await Promise.all(
      Array.from({ length: MAX_PENDING_REQUESTS + 3 }, () => sc.client.run({ command: 'a.b', args: {} })),
    );
    expect(outcomes.filter(answered)).toHaveLength(MAX_PENDING_REQUESTS);
    expect(outcomes.filter((o) => !answered(o))).toEqual(Array(3).fill({ kind: 'not_sent', code: 'busy' }));
    expect(sc.runs()).toHaveLength(MAX_PENDING_REQUESTS);
  });

  it('a request unanswered past the timeout reads as lost [HC-115]', async () => {
    sc = await scenario('socket');
    sc.script({ commands: [row('a.b')], behaviour: { 'a.b': { sleepMs: 2000 } } });
    const c = createSocketHostClient({ socketPath: sc.queuePath, timeoutMs: 300 });
    expect(await c.run({ command: 'a.b', args: {} })).toEqual({ kind: 'lost' });
    await c.close();
  });

  it('any actor or run a request could carry is not the client’s to send [HC-11, LA-117]', async () => {
    sc = await scenario('socket');
    sc.script({ commands: [row('a.b')] });
    await sc.client.run({ command: 'a.b', args: { actor: 'person:ann' } });
    const e = sc.runs()[0];
    expect(e).not.toHaveProperty('actor');
    expect(e?.args).toEqual({ actor: 'person:ann' });
  });

  it('connects only where another user cannot swap the socket: a directory writable by others sends nothing [SEC-1]', async () => {
    sc = await scenario('socket');
    sc.script({ commands: [row('a.b')] });
    expect(answered(await sc.client.run({ command: 'a.b', args: {} }))).toBe(true);
    // The socket's directory becomes writable by every user: the live connection is dropped and the
    // next request must not reconnect there.
    const dir = dirname(sc.queuePath);
    const mode = statSync(dir).mode & 0o777;
    chmodSync(dir, 0o777);
    try {
      const fresh = createSocketHostClient({ socketPath: sc.queuePath, timeoutMs: 2000 });
      expect(await fresh.run({ command: 'a.b', args: {} })).toEqual({
        kind: 'not_sent',
        code: 'command_failed',
      });
      await fresh.close();
      expect(sc.runs()).toHaveLength(1);
    } finally {
      chmodSync(dir, mode);
    }
  });

  it('greets the broker with hello once per connection', async () => {
    sc = await scenario('socket');
    sc.script({ commands: [row('a.b'), row('c.d')], behaviour: { 'c.d': { mode: 'drop' } } });
    await Promise.all(Array.from({ length: 4 }, () => sc.client.run({ command: 'a.b', args: {} })));
    await sc.client.list();
    expect(sc.broker?.hellos).toBe(1);
    await sc.client.run({ command: 'c.d', args: {} });
    await sc.client.run({ command: 'a.b', args: {} });
    expect(sc.broker?.connections).toBe(2);
    expect(sc.broker?.hellos).toBe(2);
  });

  it.each(['unsupported_protocol', 'unreadable'])(
    'a broker answering hello %s is unreachable: the listing fails and no run is sent [HC-111]',
    async (mode) => {
      sc = await scenario('socket');
      sc.script({ commands: [row('a.b')], hello: { mode } });
      // Both requests arrive while the first hello is still unanswered.
      const [run, list] = await Promise.all([sc.client.run({ command: 'a.b', args: {} }), sc.client.list()]);
      expect(run).toEqual({ kind: 'not_sent', code: 'command_failed' });
      expect(list).toEqual({ ok: false, code: 'command_failed' });
      expect(await sc.client.run({ command: 'a.b', args: {} })).toEqual({
        kind: 'not_sent',
        code: 'command_failed',
      });
      expect(sc.log()).toHaveLength(0);
      expect(sc.broker?.hellos).toBe(2);
    },
  );

  it('after a refused hello, the next request greets again and goes through once the broker speaks loom-broker/2 [HC-111]', async () => {
    sc = await scenario('socket');
    sc.script({ commands: [row('a.b')], hello: { mode: 'unsupported_protocol' } });
    expect(await sc.client.list()).toEqual({ ok: false, code: 'command_failed' });
    sc.script({ commands: [row('a.b')] });
    expect(answered(await sc.client.run({ command: 'a.b', args: {} }))).toBe(true);
    expect(sc.runs()).toHaveLength(1);
  });

  it('a broker envelope refusal of the request itself is not sent (invalid_input)', async () => {
    sc = await scenario('socket');
    sc.script({ commands: [row('a.b')], behaviour: { 'a.b': { mode: 'usage' } } });
    expect(await sc.client.run({ command: 'a.b', args: {} })).toEqual({
      kind: 'not_sent',
      code: 'invalid_input',
    });
  });
});
