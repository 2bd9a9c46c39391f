// The REAL reference host (apps/loom/dist/loom.js) for integration tests and benchmarks: a fresh
// instance with the demo workspace and a broker for one scope, stopped by its own pid.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir, type Requirement, repoRoot, tempDir } from '@harness/test-utils';

/** Where the built `loom` CLI is expected. */
export const LOOM_JS = join(repoRoot, 'apps', 'loom', 'dist', 'loom.js');

/** The built reference host the integration tests drive. */
export const REAL_HOST: Requirement = {
  what: 'the built loom CLI (apps/loom/dist/loom.js)',
  present: existsSync(LOOM_JS),
  install: 'build it (pnpm --filter @harness/loom build)',
};

/** Why the real host cannot be used (what the benches print), or `undefined` when it can. */
export function realHostMissing(): string | undefined {
  return REAL_HOST.present ? undefined : `${REAL_HOST.what} is absent: ${REAL_HOST.install}`;
}

/** A running real broker. */
export interface RealBroker {
  dir: string;
  queuePath: string;
  /**
   * Stops this broker and starts another on the same instance and socket, serving the scope file
   * `scopeFile` (what a person does to change a run's grants while the harness keeps running).
   */
  restart(scopeFile: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `loom broker start` on an instance and socket for one scope file; resolves once it is ready. */
async function startBrokerProcess(
  instance: string,
  queuePath: string,
  scopeFile: string,
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [LOOM_JS, 'broker', 'start', '--instance', instance, '--socket', queuePath, '--scope', scopeFile],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Waits on the broker's own ready line or its exit, never on the clock: under load a start takes
  // many seconds, and the calling hook's timeout guards a hang.
  await new Promise<void>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"ready":true')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`broker exited (${code}): ${err}`)));
  });
  return child;
}

/** Stops a broker process by its own pid (SIGTERM) and waits for it to exit. */
function stopBrokerProcess(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
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
  let child = await startBrokerProcess(instance, queuePath, join(fixturesDir, 'scopes', `${scope}.yaml`));
  return {
    dir: t.path,
    queuePath,
    async restart(scopeFile) {
      await stopBrokerProcess(child);
      child = await startBrokerProcess(instance, queuePath, scopeFile);
    },
    async stop() {
      await stopBrokerProcess(child);
      t.cleanup();
    },
  };
}
