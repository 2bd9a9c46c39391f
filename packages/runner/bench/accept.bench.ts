// runner-accept: webhook deliveries accepted per second (signature verified, envelope written 0600,
// delivery committed to SQLite, 202) against a bare node:http server that only reads the body, in
// the same run. The reported ratio is runner rate / bare rate (target at least 0.3).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare } from '@harness/bench-utils';
import { loadRunnerConfig } from '../src/load';
import { signBody } from '../src/signature';
import { Supervisor } from '../src/supervisor';

const root = join(import.meta.dirname, '..', '..', '..');
const body = readFileSync(join(root, 'fixtures', 'webhooks', 'github', 'pr_opened.json'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'runner-bench-'));
// The harness listens for another event, so the measured path is acceptance only (no run starts).
const loaded = loadRunnerConfig({
  file: join(dir, 'runner.yaml'),
  text: `listen: 127.0.0.1:0
sources: [{ id: gh, scheme: github, secret_env: BENCH_SECRET }]
harnesses: [{ id: h, kind: command, trigger: { source: gh, events: [release] }, argv: [/bin/true] }]
`,
});
if (!loaded.ok) throw new Error('config');
const supervisor = new Supervisor(loaded.config, {
  instanceDir: dir,
  env: { BENCH_SECRET: 'bench-secret' },
  log: () => undefined,
});
const { url } = await supervisor.start();

const bare = createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => {
    res.writeHead(202, { connection: 'close' });
    res.end('{}\n');
  });
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', () => resolve()));
const address = bare.address();
const bareUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

let n = 0;
// Each delivery is a new signed body (the receiver drops a body it accepted before, whatever its
// delivery id), signed here for both servers so the client does the same work for each.
async function deliver(base: string): Promise<void> {
  const id = n++;
  const unique = body.replace('{', `{"bench": ${id},`);
  const res = await fetch(`${base}/hooks/gh`, {
    method: 'POST',
    headers: {
      'x-github-event': 'pull_request',
      'x-github-delivery': `bench-${id}`,
      'x-hub-signature-256': signBody('github', 'bench-secret', unique),
      'content-type': 'application/json',
    },
    body: unique,
  });
  await res.text();
  if (res.status !== 202) throw new Error(`status ${res.status}`);
}

// Throughput, as a forge with several deliveries in flight sees it: each call sends 8 at once.
const IN_FLIGHT = 8;
const batch = (base: string) =>
  Promise.all(Array.from({ length: IN_FLIGHT }, () => deliver(base))).then(() => undefined);

await compare({
  name: 'runner-accept',
  subject: {
    label: `bare node:http server reading the body (202), ${IN_FLIGHT} in flight`,
    fn: () => batch(bareUrl),
  },
  anchor: {
    label: `runner receiver: verify, envelope 0600 + fsync, SQLite commit, 202; ${IN_FLIGHT} in flight`,
    fn: () => batch(url as string),
  },
  rounds: 20,
  inner: 5,
  warmup: 2,
  target: 0.3,
  targetKind: 'min',
  notes: `ratio = bare time / runner time = runner deliveries per second / bare deliveries per second; body ${Buffer.byteLength(body)} bytes (fixtures/webhooks/github/pr_opened.json), one connection per delivery, ${IN_FLIGHT} deliveries in flight.`,
});
await supervisor.stop();
bare.close();
rmSync(dir, { recursive: true, force: true });
