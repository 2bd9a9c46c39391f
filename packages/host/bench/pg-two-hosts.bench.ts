// host-pg-two-hosts: composes per second that two broker processes on one PostgreSQL schema commit
// together, each client composing into its own loom, against one broker taking the same clients,
// in the same run (phases interleaved). The ratio is the scaling of a second host; no target: on
// one machine both brokers and the server share its cores, so it reports what this machine gives.
// Needs PostgreSQL (PGHOST … or 127.0.0.1:5432, database test, user postgres); without it, it says so.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResult } from '@harness/bench-utils';
import { initInstance, postgresTargetFromEnv } from '@harness/host';
import { type BrokerClient, createBrokerClient } from '@harness/protocol/client';
import pg from 'pg';
import { interleaved, PG_ENV, requirePostgres } from './helpers';

const CLIENTS = 16;
const PHASE_MS = 4_000;
const ROUNDS = 3;
const HERE = dirname(fileURLToPath(import.meta.url));

await requirePostgres('host-pg-two-hosts');

const dir = mkdtempSync(join(tmpdir(), 'host-two-bench-'));
const target = postgresTargetFromEnv({ env: PG_ENV, schema: `bench_${randomBytes(4).toString('hex')}` });
const workspace = join(dir, 'workspace.yaml');
writeFileSync(
  workspace,
  'version: 1\ncommand_packs:\n  - id: t\n    commands:\n      - id: echo\n        argv: [echo, hi]\n        effects: read\nagents:\n  - id: writer\n    grants: [pack:t]\n',
);
const children: ChildProcess[] = [];

/** A broker process on its own instance directory (one more host on the shared schema). */
async function host(name: string): Promise<string> {
  const instance = join(dir, name);
  await initInstance(instance, workspace, { store: target });
  const queue = join(dir, `${name}.sock`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(HERE, 'broker-main.ts'),
      instance,
      queue,
      JSON.stringify({ run: 'bench', agent: 'writer' }),
    ],
    {
      cwd: join(HERE, '..'),
      env: { PATH: process.env.PATH ?? '', ...PG_ENV },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', () => reject(new Error(`broker ${name} exited before ready`)));
  });
  return queue;
}

let n = 0;
/** Runs every client for the phase, each composing into its own loom; composes per second. */
async function phase(clients: { client: BrokerClient; loomId: string }[]): Promise<number> {
  const end = Date.now() + PHASE_MS;
  let done = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    clients.map(async ({ client, loomId }) => {
      while (Date.now() < end) {
        const r = await client.run({
          command: 'loom.compose',
          args: {
            request_id: `c${n++}`,
            loom_id: loomId,
            components: [{ ref: 'page:x' }, { ref: 'page:y', stage: 'main' }],
          },
        });
        if (!r.ok || !r.value.ok) throw new Error(`compose failed: ${JSON.stringify(r)}`);
        done++;
      }
    }),
  );
  return done / (Number(process.hrtime.bigint() - started) / 1e9);
}

try {
  const [a, b] = [await host('a'), await host('b')];
  const open = async (queue: string) => {
    const client = createBrokerClient({ socketPath: queue });
    const r = await client.run({
      command: 'loom.compose',
      args: { request_id: `seed${n++}`, components: [{ ref: 'page:0' }] },
    });
    if (!r.ok || r.value.kind !== 'composed') throw new Error(`seed compose failed: ${JSON.stringify(r)}`);
    return { client, loomId: r.value.body.receipt.loom_id };
  };
  // The same sixteen looms either way; only which broker a client talks to changes.
  const alone = await Promise.all(Array.from({ length: CLIENTS }, () => open(a)));
  const split = await Promise.all(
    alone.map(async (c, i) =>
      i % 2 ? { client: createBrokerClient({ socketPath: b }), loomId: c.loomId } : c,
    ),
  );
  await phase(alone);
  await phase(split);
  const rate = await interleaved(
    ROUNDS,
    () => phase(split),
    () => phase(alone),
  );
  writeResult('host-pg-two-hosts', {
    unit: 'composes per second (both brokers together)',
    subject: {
      label: `two brokers on one schema, ${CLIENTS / 2} clients each, each client its own loom`,
      median: rate.subject,
    },
    anchor: { label: `one broker, the same ${CLIENTS} clients and looms`, median: rate.anchor },
    ratio: rate.subject / rate.anchor,
    notes: `medians over ${ROUNDS} interleaved phases of ${PHASE_MS} ms; each compose 2 components with its audit row; brokers, clients and PostgreSQL share ${cpus().length} cores of one machine`,
  });
  for (const c of [...alone, ...split]) await c.client.close();
} finally {
  for (const c of children) c.kill('SIGKILL');
  const admin = new pg.Client({
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
  });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${target.schema} CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
