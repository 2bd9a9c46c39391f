import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import {
  parseAuthoringConfig,
  parseCommandsConfig,
  readAuthoringConfig,
  readCommandsConfig,
  resolveConfigPath,
} from '../src/config';
import { QUEUE_PATH_DEPRECATION } from '../src/index';

const broker = { kind: 'broker', socketPath: '/private/loom/run/command-queue' };
const base = { cliPath: '/opt/loom/src/bin/loom', transport: broker };
const direct = {
  kind: 'direct',
  instanceDir: '/private/loom/instances/dev',
  runId: 'weaver-console',
  actor: 'agent:cf-harness',
};

describe('commands configuration', () => {
  it('takes the old key transport.queuePath as socketPath, with one deprecation warning', async () => {
    const warnings: Error[] = [];
    const listen = (w: Error) => warnings.push(w);
    process.on('warning', listen);
    try {
      const old = { cliPath: base.cliPath, transport: { kind: 'broker', queuePath: '/run/loom/old.sock' } };
      expect(parseCommandsConfig(old)).toEqual({
        ok: true,
        value: { cliPath: base.cliPath, transport: { kind: 'broker', socketPath: '/run/loom/old.sock' } },
      });
      expect(parseAuthoringConfig(old)).toMatchObject({
        ok: true,
        value: { transport: { socketPath: '/run/loom/old.sock' } },
      });
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => [w.name, (w as { code?: string }).code, w.message])).toEqual([
        [
          'DeprecationWarning',
          QUEUE_PATH_DEPRECATION,
          'transport.queuePath is deprecated: rename it to transport.socketPath (same value).',
        ],
      ]);
      // The new key alone raises nothing.
      expect(parseCommandsConfig(base).ok).toBe(true);
    } finally {
      process.off('warning', listen);
    }
  });

  it('refuses queuePath and socketPath together, since they could disagree', () => {
    const r = parseCommandsConfig({ ...base, transport: { ...broker, queuePath: '/run/other.sock' } });
    expect(r).toEqual({
      ok: false,
      issues: [
        {
          code: 'custom',
          path: 'transport.queuePath',
          message: 'give transport.socketPath only: transport.queuePath is its old name, and both are set',
        },
      ],
    });
  });

  it('accepts the seed’s example: cliPath, jobIdEnvVar and a broker socketPath [HC-08]', () => {
    const r = parseCommandsConfig({ ...base, jobIdEnvVar: 'LOOM_COMMAND_JOB_ID' });
    expect(r).toEqual({ ok: true, value: { ...base, jobIdEnvVar: 'LOOM_COMMAND_JOB_ID' } });
  });

  it('cliPath and socketPath are required and must be absolute (decision) [HC-08]', () => {
    for (const bad of [
      { transport: broker },
      { cliPath: '/x' },
      { ...base, cliPath: 'bin/loom' },
      { ...base, transport: { ...broker, socketPath: 'q' } },
    ]) {
      expect(parseCommandsConfig(bad).ok).toBe(false);
    }
  });

  it('a direct transport is refused when the file is read, with the reason [HC-07]', () => {
    const r = parseCommandsConfig({ ...base, transport: direct });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.message).toMatch(/must be "broker".*only the broker enforces/);
  });

  it('jobIdEnvVar is optional [HC-14]', () => {
    expect(parseCommandsConfig(base)).toEqual({ ok: true, value: base });
  });

  it('a jobId in the file is ignored [HC-16]', () => {
    const r = parseCommandsConfig({ ...base, jobId: 'from-file' });
    expect(r.ok && 'jobId' in r.value).toBe(false);
  });

  it('a jobIdEnvVar that is not an uppercase identifier is refused when the file is read [HC-20]', () => {
    for (const name of ['lower', '1ABC', 'A-B', 'A B', '', 'ÄB']) {
      expect(parseCommandsConfig({ ...base, jobIdEnvVar: name }).ok).toBe(false);
    }
    for (const name of ['_X', 'JOB_ID_2', 'A'])
      expect(parseCommandsConfig({ ...base, jobIdEnvVar: name }).ok).toBe(true);
  });

  it('jobIdEnvVar cannot be PATH or LOOM_PAGE_RPC_QUEUE [HC-21]', () => {
    expect(parseCommandsConfig({ ...base, jobIdEnvVar: 'PATH' }).ok).toBe(false);
    expect(parseCommandsConfig({ ...base, jobIdEnvVar: 'LOOM_PAGE_RPC_QUEUE' }).ok).toBe(false);
  });

  it('the file is read on the host from an absolute path; a relative one is refused [HC-02, HC-04]', () => {
    const t = tempDir();
    const p = join(t.path, 'host.json');
    writeFileSync(p, JSON.stringify(base));
    expect(readCommandsConfig(p)).toEqual({ ok: true, value: base });
    expect(readCommandsConfig('host.json').ok).toBe(false);
    writeFileSync(p, '{not json');
    expect(readCommandsConfig(p)).toMatchObject({ ok: false, issues: [{ code: 'invalid_json' }] });
    t.cleanup();
  });

  it('the flag wins over CF_HARNESS_LOOM_COMMANDS_CONFIG; either alone is used; relative refused (decision) [HC-03]', () => {
    expect(resolveConfigPath({ flag: '/a.json', env: '/b.json' })).toEqual({ ok: true, value: '/a.json' });
    expect(resolveConfigPath({ env: '/b.json' })).toEqual({ ok: true, value: '/b.json' });
    expect(resolveConfigPath({})).toEqual({ ok: true, value: undefined });
    expect(resolveConfigPath({ flag: 'rel.json' }).ok).toBe(false);
  });

  it('accepts transport.client socket (the fast path opt-in) and refuses other clients', () => {
    expect(parseCommandsConfig({ ...base, transport: { ...broker, client: 'socket' } }).ok).toBe(true);
    expect(parseCommandsConfig({ ...base, transport: { ...broker, client: 'http' } }).ok).toBe(false);
  });
});

describe('authoring configuration', () => {
  it('a broker configuration holds cliPath and the broker queue [LA-17]', () => {
    expect(parseAuthoringConfig(base)).toEqual({ ok: true, value: base });
  });

  it('a direct configuration pins instance, run id and actor [LA-18]', () => {
    expect(parseAuthoringConfig({ ...base, transport: direct })).toEqual({
      ok: true,
      value: { ...base, transport: direct },
    });
  });

  it('relative cliPath, socketPath or instanceDir are refused [LA-19]', () => {
    expect(parseAuthoringConfig({ ...base, cliPath: 'loom' }).ok).toBe(false);
    expect(parseAuthoringConfig({ ...base, transport: { ...broker, socketPath: './q' } }).ok).toBe(false);
    expect(parseAuthoringConfig({ ...base, transport: { ...direct, instanceDir: 'inst' } }).ok).toBe(false);
  });

  it('an empty run identity is refused (decision: runId and actor) [LA-20]', () => {
    expect(parseAuthoringConfig({ ...base, transport: { ...direct, runId: '' } }).ok).toBe(false);
    expect(parseAuthoringConfig({ ...base, transport: { ...direct, actor: '' } }).ok).toBe(false);
  });

  it('a run identity with surrounding whitespace is refused (decision: refused, not trimmed) [LA-21]', () => {
    expect(parseAuthoringConfig({ ...base, transport: { ...direct, runId: ' weaver' } }).ok).toBe(false);
    expect(parseAuthoringConfig({ ...base, transport: { ...direct, actor: 'agent:x ' } }).ok).toBe(false);
  });

  it('a run identity longer than 128 characters is refused [LA-22]', () => {
    expect(parseAuthoringConfig({ ...base, transport: { ...direct, runId: 'r'.repeat(128) } }).ok).toBe(true);
    expect(parseAuthoringConfig({ ...base, transport: { ...direct, runId: 'r'.repeat(129) } }).ok).toBe(
      false,
    );
  });

  it('an optional boundLoomId is accepted [LA-23]', () => {
    expect(parseAuthoringConfig({ ...base, boundLoomId: 'loom-1' })).toMatchObject({
      ok: true,
      value: { boundLoomId: 'loom-1' },
    });
  });

  it('allowCommentThreads must be a boolean; a truthy non-boolean is refused (decision) [LA-68]', () => {
    expect(parseAuthoringConfig({ ...base, allowCommentThreads: true }).ok).toBe(true);
    expect(parseAuthoringConfig({ ...base, allowCommentThreads: 'yes' }).ok).toBe(false);
    expect(parseAuthoringConfig({ ...base, allowCommentThreads: 1 }).ok).toBe(false);
  });

  it('the flag wins over CF_HARNESS_LOOM_AUTHORING_CONFIG; read on the host (decision as HC-03) [LA-04, LA-05]', () => {
    const t = tempDir();
    const p = join(t.path, 'a.json');
    writeFileSync(p, JSON.stringify({ ...base, transport: direct }));
    const path = resolveConfigPath({ flag: p, env: '/elsewhere.json' });
    expect(path).toEqual({ ok: true, value: p });
    expect(readAuthoringConfig(p).ok).toBe(true);
    t.cleanup();
  });
});

describe('Fabric binding', () => {
  it('flags or CF_HARNESS_FABRIC_* give a complete binding; a partial one is refused [LA-11, LA-12, LA-15]', async () => {
    const { readFabricBinding } = await import('../src/pattern');
    expect(readFabricBinding({})).toEqual({ ok: true, value: undefined });
    expect(readFabricBinding({ apiUrl: 'https://f', identity: 'i', space: 's' })).toMatchObject({
      ok: true,
      value: { space: 's' },
    });
    expect(
      readFabricBinding(
        { space: 'flag' },
        {
          CF_HARNESS_FABRIC_API_URL: 'https://f',
          CF_HARNESS_FABRIC_IDENTITY: 'i',
          CF_HARNESS_FABRIC_SPACE: 'env',
        },
      ),
    ).toMatchObject({ ok: true, value: { space: 'flag', apiUrl: 'https://f' } });
    expect(readFabricBinding({ apiUrl: 'https://f' })).toEqual({
      ok: false,
      missing: ['--fabric-identity', '--fabric-space'],
    });
  });
});
