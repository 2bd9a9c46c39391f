// The REAL reference host (apps/loom/dist/loom.js) for integration tests and benchmarks: a fresh
// instance with the demo workspace and a broker for one scope, stopped by its own pid.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir, repoRoot, tempDir } from '@harness/test-utils';

/** Where the built `loom` CLI is expected. */
export const LOOM_JS = join(repoRoot, 'apps', 'loom', 'dist', 'loom.js');

/** Why the real host cannot be used, or `undefined` when it can. */
export function realHostMissing(): string | undefined {
  if (!existsSync(LOOM_JS))
    return `apps/loom/dist/loom.js is absent: build it (pnpm --filter @harness/loom build) to run the real-host tests`;
  return undefined;
}

/** A running real broker. */
export interface RealBroker {
  dir: string;
  queuePath: string;
  stop(): Promise<void>;
}

/** Initialises an instance with the demo workspace and starts a broker for `scope` (a fixtures/scopes file). */
export async function startRealBroker(scope: 'reader' | 'editor'): Promise<RealBroker> {
  const t = tempDir('harness-commands-real-');
  const instance = join(t.path, 'inst');
  const init = spawnSync(
    process.execPath,
    [LOOM_JS, 'init', instance, '--workspace', join(fixturesDir, 'workspaces', 'demo', 'workspace.yaml')],
    { encoding: 'utf8' },
  );
  if (init.status !== 0) throw new Error(`loom init failed: ${init.stderr}`);
  const queuePath = join(t.path, `${scope}.sock`);
  const child = spawn(
    process.execPath,
    [
      LOOM_JS,
      'broker',
      'start',
      '--instance',
      instance,
      '--socket',
      queuePath,
      '--scope',
      join(fixturesDir, 'scopes', `${scope}.yaml`),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`broker did not start: ${out}${err}`)), 15_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"ready":true')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`broker exited (${code}): ${err}`));
    });
  });
  return {
    dir: t.path,
    queuePath,
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        if (child.exitCode !== null) {
          t.cleanup();
          resolve();
          return;
        }
        child.once('exit', () => {
          t.cleanup();
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
