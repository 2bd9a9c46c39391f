// Installing a pinned agent CLI into the cache: where the cache is, that a whole install is reused
// without npm, and that a half install is never taken for a whole one. No test here reaches a
// registry: npm runs offline, so a package missing from its cache fails at once.
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheRoot, installDir, installPinned, MARKER, type PinnedPackage } from '../src/index';

const PKG: PinnedPackage = { name: '@harness/agent-clis-fixture', version: '1.2.3', bin: 'fixture' };

/** Writes the files an install of PKG leaves: its binary, and the marker when `whole`. */
function lay(root: string, whole: boolean): string {
  const dir = installDir(PKG, root);
  const bin = join(dir, 'node_modules', '.bin', PKG.bin);
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(bin, '#!/bin/sh\necho 1.2.3\n');
  chmodSync(bin, 0o755);
  if (whole) writeFileSync(join(dir, MARKER), `${JSON.stringify(PKG)}\n`);
  return bin;
}

describe('installPinned', () => {
  const dirs: { cleanup: () => void }[] = [];
  const fresh = () => {
    const dir = tempDir('harness-agent-clis-cache-');
    dirs.push(dir);
    return dir.path;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) d.cleanup();
  });

  it('keeps its cache under $XDG_CACHE_HOME, else ~/.cache, one folder per name@version', () => {
    expect(cacheRoot({ XDG_CACHE_HOME: '/srv/cache' })).toBe('/srv/cache/harness-agent-clis');
    expect(cacheRoot({})).toBe(join(homedir(), '.cache', 'harness-agent-clis'));
    expect(installDir(PKG, '/c')).toBe('/c/@harness/agent-clis-fixture@1.2.3');
  });

  it('returns a whole install from the cache without running npm', async () => {
    const root = fresh();
    const bin = lay(root, true);
    // No npm on this PATH: an install would fail.
    const installed = await installPinned(PKG, { root, env: { PATH: '' } });
    expect(installed).toEqual({ ok: true, bin, dir: installDir(PKG, root) });
  });

  it('does not take a folder without its marker for an install, and says why npm failed, leaving no partial folder', async () => {
    const root = fresh();
    lay(root, false);
    const env = { ...process.env, npm_config_offline: 'true', npm_config_cache: join(root, 'npm-cache') };
    const installed = await installPinned(PKG, { root, env });
    expect(installed.ok).toBe(false);
    if (installed.ok) return;
    expect(installed.reason).toMatch(
      new RegExp(
        `^npm install @harness/agent-clis-fixture@1\\.2\\.3 into ${installDir(PKG, root)} failed \\(exit \\d+\\): .*ENOTCACHED`,
      ),
    );
    expect(readdirSync(join(root, '@harness'))).toEqual(['agent-clis-fixture@1.2.3']);
    expect(existsSync(join(installDir(PKG, root), MARKER))).toBe(false);
  });

  it('says so when npm cannot be started at all', async () => {
    const root = fresh();
    const installed = await installPinned(PKG, { root, env: { PATH: '' } });
    expect(installed).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^npm install @harness\/agent-clis-fixture@1\.2\.3 into .* failed \(exit -1\): .*ENOENT/,
      ),
    });
  });
});
