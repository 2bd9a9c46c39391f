// serve-startup: from spawning `harness serve` (embedded default, existing instance) to the first
// tools/list answer through the real SDK client, against `node -e 0` run to its exit.
import { spawn } from 'node:child_process';
import { compare, writeResult } from '@harness/bench-utils';
import { benchDir, requireBin, serveStdio } from './fixture';

requireBin('serve-startup');
const dir = benchDir();

async function firstList(): Promise<void> {
  const serve = await serveStdio(dir);
  await serve.client.listTools();
  await serve.client.close();
}

function nodeNothing(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
}

try {
  // The first connect creates the instance directory and its store: reported apart.
  const start = performance.now();
  await firstList();
  const firstConnectMs = performance.now() - start;
  const result = await compare({
    name: 'serve-startup',
    unit: 'ms',
    subject: { label: 'spawn harness serve → first tools/list answer (instance exists)', fn: firstList },
    anchor: { label: 'node -e 0, spawned and awaited', fn: nodeNothing },
    rounds: 12,
    inner: 1,
    warmup: 2,
    target: 3,
    notes: 'includes opening the store, loading the workspace and starting the embedded broker',
  });
  writeResult('serve-startup', { ...result, firstConnectMs });
} finally {
  dir.cleanup();
}
