// serve-startup: from spawning `harness serve` (embedded default, existing instance) to the first
// tools/list answer through the real SDK client, against `node -e 0` spawned and run to its exit.
// serve answers initialize once its embedded host has started (the start runs beside the MCP
// server's loading; a host that cannot start ends serve), and the same runs also time spawn → the
// first list_commands answer, the first call through the host: reported beside the ratio, without
// a target. Each serve is closed and awaited to its exit after its answers, outside the timed interval
// and before the next sample starts.
//
// The floor beside them: a plain MCP SDK server (plain-server.mjs, one tool) spawned the same way,
// to its first tools/list and its first tool call. Every MCP server written with the SDK pays that
// (Node's start, the SDK and zod loading); what serve adds is the rest.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { summarize, writeResult } from '@harness/bench-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
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

const PLAIN_SERVER = fileURLToPath(new URL('./plain-server.mjs', import.meta.url));

/** Spawn → the plain SDK server's first tools/list answer, and → its first tool call's answer, in ms. */
async function plainAnswers(): Promise<{ list: number; call: number }> {
  const start = performance.now();
  const client = new Client({ name: 'harness-bench', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [PLAIN_SERVER], stderr: 'ignore' }),
  );
  try {
    await client.listTools();
    const list = performance.now() - start;
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    return { list, call: performance.now() - start };
  } finally {
    await client.close();
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
    await plainAnswers();
  }
  const list: number[] = [];
  const call: number[] = [];
  const anchor: number[] = [];
  const plainList: number[] = [];
  const plainCall: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which side goes first so neither always runs on a warmer cache.
    if (i % 2) anchor.push(await nodeNothing());
    const plain = await plainAnswers();
    plainList.push(plain.list);
    plainCall.push(plain.call);
    const answers = await firstAnswers();
    list.push(answers.list);
    call.push(answers.call);
    if (i % 2 === 0) anchor.push(await nodeNothing());
  }
  const subject = summarize(list);
  const node = summarize(anchor);
  const firstCall = summarize(call);
  const floor = { list: summarize(plainList), call: summarize(plainCall) };
  const ratio = subject.median / node.median;
  const firstCallRatio = firstCall.median / node.median;
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
      ratio: firstCallRatio,
      target: { ratioAtMost: TARGET },
      pass: firstCallRatio <= TARGET,
      ratioToFloor: firstCall.median / floor.call.median,
    },
    floor: {
      label:
        'a plain MCP SDK server (one tool, plain-server.mjs): spawn → first tools/list, → first tool call',
      list: { ...floor.list, ratioToNode: floor.list.median / node.median },
      call: { ...floor.call, ratioToNode: floor.call.median / node.median },
    },
    listRatioToFloor: subject.median / floor.list.median,
    firstConnectMs,
    notes:
      'tools/list is answered before the embedded host has started; firstCall includes opening the store, loading the workspace and starting the embedded broker. The floor is what any SDK server pays before its first answer (Node, the SDK, zod); a target below it cannot be met by serve',
  });
} finally {
  dir.cleanup();
}
