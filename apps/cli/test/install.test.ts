// Installing the workspace as a user does: what `pnpm install` prints on a fresh clone.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot, tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';

const box = tempDir('harness-install-');
afterAll(() => box.cleanup());

function sh(cmd: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout: 240_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, output: stdout + stderr });
    });
  });
}

describe('a fresh install', () => {
  it('links every bin without a "Failed to create bin" warning before anything is built', async () => {
    // The manifests, the lockfile and what every `bin` points at: a clone before its first build.
    const listed = await sh(
      'git',
      ['ls-files', 'package.json', 'pnpm-*.yaml', '*/package.json', '*/bin/*'],
      repoRoot,
    );
    for (const file of listed.output.split('\n').filter((f) => f !== '' && !f.startsWith('fixtures/'))) {
      mkdirSync(join(box.path, dirname(file)), { recursive: true });
      cpSync(join(repoRoot, file), join(box.path, file));
    }
    const r = await sh(
      'npx',
      ['-y', 'pnpm@10', 'install', '--frozen-lockfile', '--offline', '--ignore-scripts'],
      box.path,
    );
    expect(r.output).not.toMatch(/Failed to create bin/);
    expect(r.code).toBe(0);
    const launcher = readFileSync(join(box.path, 'apps', 'cli', 'node_modules', '.bin', 'loom'), 'utf8');
    expect(launcher).toContain('loom/bin/loom.js');
  });

  it('says how to build when a bin runs before the build', async () => {
    const r = await sh(
      process.execPath,
      [join(box.path, 'apps', 'loom', 'bin', 'loom.js'), '--version'],
      box.path,
    );
    expect(r.output).toBe('loom: not built yet; run `pnpm build` in the repository first\n');
    expect(r.code).toBe(70);
  });

  it('puts harness and loom on PATH from a clone with one script', async () => {
    const dir = join(box.path, 'bin');
    const linked = await sh('sh', [join(repoRoot, 'scripts', 'link-bins.sh'), dir], repoRoot);
    expect(linked.output).toContain(`linked harness and loom in ${dir}\n`);
    const harness = await sh(join(dir, 'harness'), ['--version'], box.path);
    expect(harness.output).toMatch(/^harness \d+\.\d+\.\d+\n$/);
    const loom = await sh(join(dir, 'loom'), ['--version'], box.path);
    expect(loom.output).toMatch(/^loom \d+\.\d+\.\d+\n$/);
  });
});
