// The record that survives its key (docs/audit.md, "Where the key is recorded"): an instance's public
// key written once into the person's user config, key files read as a person keeps them, and a store
// compared with an earlier export of it, which whoever holds the instance key cannot rewrite.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compareAuditWithExport } from '../src/audit-against';
import { exportAudit } from '../src/audit-export';
import {
  auditKeyRecordFile,
  auditSigner,
  ensureAuditKey,
  publicKeysIn,
  readAuditSigner,
  readRecordedAuditKey,
  recordAuditKey,
  recordNewInstanceKey,
} from '../src/audit-key';
import type { AuditSigner, Store } from '../src/types';
import { auditEvent } from './inputs';
import { describeStores } from './stores';

const newSigner = (): AuditSigner => auditSigner(generateKeyPairSync('ed25519').privateKey);

let t: { path: string; cleanup: () => void };
let env: { XDG_CONFIG_HOME: string };
beforeEach(() => {
  t = tempDir('audit-key-record-');
  env = { XDG_CONFIG_HOME: join(t.path, 'config') };
});
afterEach(() => t.cleanup());

describe('the recorded audit key', () => {
  it('is written once under $XDG_CONFIG_HOME, named by the real path of the instance [SEC-26]', () => {
    const instance = join(t.path, 'instance');
    mkdirSync(instance);
    ensureAuditKey(instance);
    const own = readAuditSigner(instance).publicKey;
    expect(readRecordedAuditKey(instance, env)).toBeUndefined();
    const made = recordNewInstanceKey(instance, env);
    expect(made).toEqual({ publicKey: own, file: auditKeyRecordFile(instance, env), status: 'recorded' });
    expect(made.file).toMatch(new RegExp(`^${env.XDG_CONFIG_HOME}/harness/audit-keys/[0-9a-f]{32}\\.pub$`));
    expect(readRecordedAuditKey(join(t.path, '.', 'instance'), env)).toEqual({
      publicKey: own,
      file: made.file,
    });
    expect(recordAuditKey(instance, own, { env }).status).toBe('unchanged');
  });

  it('keeps a record of another key, unless a new instance replaces a removed one at its path [SEC-26]', () => {
    const instance = join(t.path, 'instance');
    const first = newSigner().publicKey;
    const second = newSigner().publicKey;
    const { file } = recordAuditKey(instance, first, { env });
    expect(() => recordAuditKey(instance, second, { env })).toThrow(
      `${file} records another key for this instance (${first}), not ${second}; if the instance was made again at this path, remove that file and record the new key`,
    );
    expect(readRecordedAuditKey(instance, env)?.publicKey).toBe(first);
    expect(recordAuditKey(instance, second, { env, replace: true }).status).toBe('replaced');
    expect(readRecordedAuditKey(instance, env)?.publicKey).toBe(second);
  });

  it('refuses a record that holds two keys: it was changed [SEC-26]', () => {
    const instance = join(t.path, 'instance');
    const { file } = recordAuditKey(instance, newSigner().publicKey, { env });
    writeFileSync(file, `${readFileSync(file, 'utf8')}${newSigner().publicKey}\n`);
    expect(() => readRecordedAuditKey(instance, env)).toThrow(
      `${file} records 2 different keys where one belongs: it was changed; compare it with the key you kept elsewhere`,
    );
  });
});

describe('a key file', () => {
  it('holds PEM public keys and ed25519 lines, with # comments, each key once', () => {
    const a = newSigner().publicKey;
    const { publicKey } = generateKeyPairSync('ed25519');
    const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(publicKeysIn(`# kept on paper\n${a}\n\n${pem}${a}\n`)).toHaveLength(2);
    expect(() => publicKeysIn('# only a comment\n', 'kept.pub')).toThrow(
      'kept.pub holds no key; it needs a line ed25519:… (as `harness doctor` prints it) or a PEM public key',
    );
    expect(() => publicKeysIn(`${a}\nssh-ed25519 AAAA\n`, 'kept.pub')).toThrow(
      'kept.pub, line 2, is neither a key (ed25519:…), a PEM public key nor a # comment',
    );
  });
});

/** `count` events through the store's own append, `payload.i` from 1. */
async function appendMany(store: Store, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) await store.appendAudit(auditEvent({ payload: { i } }));
}

async function* linesOf(text: string): AsyncGenerator<string> {
  for (const line of text.trimEnd().split('\n')) yield line;
}

describeStores('a store compared with an earlier export of it', (kind) => {
  const signed = async (signer: AuditSigner): Promise<Store> => {
    if (kind.name === 'postgres') await kind.sql('TRUNCATE audit_heads, audit_checkpoints RESTART IDENTITY');
    await (await kind.open()).close();
    return (await import('../src/open')).openStoreTarget(kind.target(), { auditSigner: signer });
  };
  const exported = async (store: Store, signer: AuditSigner): Promise<string> => {
    let text = '';
    await exportAudit(store, signer, (line) => {
      text += line;
    });
    return text;
  };

  it('holds the same history, and counts what a signed prune removed since [SEC-26]', async () => {
    const signer = newSigner();
    const store = await signed(signer);
    try {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2020-06-01T00:00:00Z'));
      await appendMany(store, 10);
      vi.useRealTimers();
      await appendMany(store, 10);
      const text = await exported(store, signer);
      const same = await compareAuditWithExport(store, linesOf(text), { publicKeys: [signer.publicKey] });
      expect(same).toMatchObject({ ok: true, compared: 20, pruned: 0 });
      await store.prune(new Date('2021-01-01T00:00:00Z'));
      const pruned = await compareAuditWithExport(store, linesOf(text));
      expect(pruned).toMatchObject({ ok: true, compared: 10, pruned: 10 });
    } finally {
      vi.useRealTimers();
      await store.close();
    }
  });

  it('names a store cut after the export, or emptied of its chain [SEC-26]', async () => {
    const signer = newSigner();
    const store = await signed(signer);
    try {
      await appendMany(store, 20);
      const text = await exported(store, signer);
      await kind.sql('DELETE FROM audit WHERE chain_n > 15');
      const cut = await compareAuditWithExport(store, linesOf(text));
      expect(cut.ok ? undefined : cut.problem).toMatchObject({
        kind: 'diverged',
        chain: signer.chain,
        message: expect.stringMatching(
          new RegExp(
            `^the export of \\S+ holds chain ${signer.chain} through position 20, but the store's chain ends at position 15: events were removed`,
          ),
        ),
      });
      await kind.sql('DELETE FROM audit');
      const gone = await compareAuditWithExport(store, linesOf(text));
      expect(gone.ok ? undefined : gone.problem.message).toMatch(/but the store holds no event of it: /);
    } finally {
      await store.close();
    }
  });

  it('does not take an export that does not verify, or one signed by a key not named [SEC-26]', async () => {
    const signer = newSigner();
    const store = await signed(signer);
    try {
      await appendMany(store, 3);
      const text = await exported(store, signer);
      const other = await compareAuditWithExport(store, linesOf(text), {
        publicKeys: [newSigner().publicKey],
      });
      expect(other.ok ? undefined : other.problem.kind).toBe('export');
      const changed = await compareAuditWithExport(store, linesOf(text.replace('"i":2', '"i":9')));
      expect(changed.ok ? undefined : changed.problem.message).toMatch(
        /^the export of \S+ does not verify, so it cannot witness the store: event \d+ was changed/,
      );
    } finally {
      await store.close();
    }
  });
});
