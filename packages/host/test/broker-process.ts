// A real broker in its own process (startBroker from the sources, under tsx): through
// fixtures/broker-main.ts, what a crash or a second host looks like to the store; through
// fixtures/reload-broker-main.ts, a broker following its workspace file, its checks on stdout.
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Lines } from '@harness/test-utils';

const HERE = dirname(fileURLToPath(import.meta.url));
const BROKER_MAIN = join(HERE, 'fixtures', 'broker-main.ts');
const RELOAD_BROKER_MAIN = join(HERE, 'fixtures', 'reload-broker-main.ts');
const PACKAGE_DIR = join(HERE, '..');

/** A started broker process and the promise of its exit. */
export interface BrokerProcess {
  child: ChildProcess;
  exited: Promise<unknown>;
}

/**
 * Starts a broker for `scope` on `instance`, listening on `socket`, and resolves once it printed its
 * ready line (rejects with its stderr if it exits first). The child is pushed to `children` so the
 * test's cleanup can kill it.
 */
export function startBrokerProcess(
  instance: string,
  socket: string,
  scope: { run: string; agent: string },
  children: ChildProcess[],
): Promise<BrokerProcess> {
  const child = spawn(
    process.execPath,
    ['--conditions=@harness/source', '--import', 'tsx', BROKER_MAIN, instance, socket, JSON.stringify(scope)],
    {
      cwd: PACKAGE_DIR,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const exited = new Promise((r) => child.once('exit', r));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('\n')) resolve({ child, exited });
    });
    void exited.then(() => reject(new Error(`broker exited before ready: ${err}`)));
  });
}

/** A broker process that follows its workspace file, and the lines it writes. */
export interface ReloadingBroker {
  child: ChildProcess;
  stdout: Lines;
  stderr: Lines;
  socket: string;
}

/**
 * Starts a broker for agent `reader` of run `run-1` on `instance` that follows its workspace file,
 * its socket (`run/broker.sock`) and XDG state under `dir`; resolves once it printed its ready line.
 */
export async function startReloadingBroker(dir: string, instance: string): Promise<ReloadingBroker> {
  const socket = join(dir, 'run', 'broker.sock');
  const child = spawn(
    process.execPath,
    [
      '--conditions=@harness/source',
      '--import',
      'tsx',
      RELOAD_BROKER_MAIN,
      instance,
      socket,
      JSON.stringify({ run: 'run-1', agent: 'reader' }),
    ],
    {
      cwd: PACKAGE_DIR,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_STATE_HOME: join(dir, 'state') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const started = { child, stdout: new Lines(child.stdout), stderr: new Lines(child.stderr), socket };
  await started.stdout.next((l) => l.includes('"ready":true'));
  return started;
}
