// serve-startup: from spawning `harness serve` (embedded default, existing instance) to the first
// tools/list answer through the real SDK client, against `node -e 0` spawned and run to its exit.
// serve answers initialize and tools/list before its embedded host has started (the start runs in
// the background), so the same runs also time spawn → the first list_commands answer, which waits
// for the host: reported beside the ratio, without a target, so the lazy start hides none of its
// cost. Each serve is closed and awaited to its exit after its answers, outside the timed interval
// and before the next sample starts.
import { spawn } from 'node:child_process';
import { summarize, writeResult } from '@harness/bench-utils';
import { benchDir, requireBin, serveStdio } from './fixture';

requireBin('serve-startup');
const dir = benchDir();

/** Spawn → the first tools/list answer, and spawn → the first list_commands answer, in ms. */
async function firstAnswers(): Promise<{ list: number; call: number }> {
  const start = performance.now();
  const serve = await serveStdio(dir);
  try {
    await serve.client.listTools();
    const list = performance.now() - start;
    const res = await serve.client.callTool({ name: 'list_commands', arguments: {} });
    const call = performance.now() - start;
    if (res.isError) throw new Error(`list_commands failed: ${JSON.stringify(res.structuredContent)}`);
    return { list, call };
  } finally {
    await serve.client.close();
  }
}

function nodeNothing(): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - start));
  });
}

const ROUNDS = 12;
const WARMUP = 2;
const TARGET = 3;

try {
  // The first connect creates the instance directory and its store: reported apart.
  const firstConnectMs = (await firstAnswers()).call;
  for (let i = 0; i < WARMUP; i++) {
    await firstAnswers();
    await nodeNothing();
  }
  const list: number[] = [];
  const call: number[] = [];
  const anchor: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which side goes first so neither always runs on a warmer cache.
    if (i % 2) anchor.push(await nodeNothing());
    const answers = await firstAnswers();
    list.push(answers.list);
    call.push(answers.call);
    if (i % 2 === 0) anchor.push(await nodeNothing());
  }
  const subject = summarize(list);
  const node = summarize(anchor);
  const firstCall = summarize(call);
  const ratio = subject.median / node.median;
  writeResult('serve-startup', {
    unit: 'ms per call',
    subject: { label: 'spawn harness serve → first tools/list answer (instance exists)', ...subject },
    anchor: { label: 'node -e 0, spawned and awaited', ...node },
    ratio,
    target: { ratioAtMost: TARGET },
    pass: ratio <= TARGET,
    firstCall: {
      label: 'spawn harness serve → first list_commands answer (waits for the embedded host)',
      ...firstCall,
      ratio: firstCall.median / node.median,
    },
    firstConnectMs,
    notes:
      'tools/list is answered before the embedded host has started; firstCall includes opening the store, loading the workspace and starting the embedded broker',
  });
} finally {
  dir.cleanup();
}
