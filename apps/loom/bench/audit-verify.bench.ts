// audit-verify: 1 000 000 events verified from a JSONL export (docs/audit.md), against reading the
// same file line by line, parsing each line and taking one SHA-256 of it, in the same run: the
// least any verifier of that file must do. Target: ≥ 200 000 events/s. The export is made the way
// `loom audit export` makes it, from an SQLite store whose rows carry the chain the store's append
// computes (written in bulk: a million single appends would take minutes to set up). Also times the
// real `loom audit verify --from` once, process start included. Run `pnpm build` first.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { summarize, writeResult } from '@harness/bench-utils';
import {
  auditExportLines,
  ensureAuditKey,
  eventHash,
  exportAudit,
  GENESIS,
  openStoreTarget,
  readAuditSigner,
  verifyAuditExport,
} from '@harness/store';
import Database from 'better-sqlite3';

const EVENTS = 1_000_000;
const ROUNDS = 3;
const TARGET = 200_000;
const LOOM = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'loom.js');
const dir = mkdtempSync(join(tmpdir(), 'audit-verify-bench-'));
const file = join(dir, 'store.db');
const bundle = join(dir, 'audit.jsonl');

ensureAuditKey(dir);
const signer = readAuditSigner(dir);
const begun = await openStoreTarget({ kind: 'sqlite', file }, { auditSigner: signer });
await begun.checkpointAudit('schedule');
await begun.close();
{
  const db = new Database(file);
  const insert = db.prepare(
    'INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload, chain, chain_n, prev, hash) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const start = Date.parse('2026-11-01T00:00:00Z');
  let prev = GENESIS;
  db.transaction(() => {
    for (let n = 1; n <= EVENTS; n++) {
      const command = `pack${n % 8}.cmd${n % 5}`;
      const refused = n % 23 === 5;
      const e = {
        at: new Date(start + n * 2_000).toISOString(),
        run: `run-${Math.floor(n / 500)}`,
        actor: `agent:a${n % 10}`,
        job: null,
        command,
        action: `command:call:${command.replace('.', ':')}`,
        phase: 'run' as const,
        outcome: refused ? 'refused' : 'ok',
        code: refused ? 'refused' : 'ok',
        reason: refused ? 'approval_required' : null,
        payload: {
          provider: 'command',
          arg_names: ['path'],
          run: { status: 'ok', argv: ['cat', '--', `/srv/data/file-${n}.txt`], exitCode: 0, durationMs: 4 },
        },
        chain: signer.chain,
        n,
        prev,
      };
      const hash = eventHash(e);
      insert.run(
        e.at,
        e.run,
        e.actor,
        e.command,
        e.action,
        e.phase,
        e.outcome,
        e.code,
        e.reason,
        JSON.stringify(e.payload),
        e.chain,
        n,
        prev,
        hash,
      );
      prev = hash;
    }
    db.prepare('UPDATE audit_heads SET n = ?, head = ? WHERE chain = ?').run(EVENTS, prev, signer.chain);
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
{
  // The export as `loom audit export --out` writes it (a fresh `export` checkpoint first).
  const store = await openStoreTarget({ kind: 'sqlite', file }, { auditSigner: signer });
  const fd = openSync(bundle, 'w', 0o600);
  let pending: string[] = [];
  const flush = () => {
    writeSync(fd, pending.join(''));
    pending = [];
  };
  await exportAudit(store, signer, (text) => {
    pending.push(text);
    if (pending.length >= 4096) flush();
  });
  flush();
  closeSync(fd);
  await store.close();
}

const lines = () => auditExportLines(createReadStream(bundle, { highWaterMark: 1 << 20 }));

/** Seconds to verify the export, checking every event, checkpoint and the trailer. */
async function subject(): Promise<number> {
  const t0 = performance.now();
  const result = await verifyAuditExport(lines(), { publicKeys: [signer.publicKey] });
  const s = (performance.now() - t0) / 1000;
  if (!result.ok || result.events !== EVENTS)
    throw new Error(`the export did not verify: ${JSON.stringify(result.problem)}`);
  return s;
}

/** Seconds to read the same lines (the same splitter), parse each and take one SHA-256 of each. */
async function anchor(): Promise<number> {
  const t0 = performance.now();
  let count = 0;
  for await (const line of lines()) {
    JSON.parse(line);
    createHash('sha256').update(line).digest('hex');
    count++;
  }
  const s = (performance.now() - t0) / 1000;
  if (count < EVENTS) throw new Error('the export is short');
  return s;
}

const subjectS: number[] = [];
const anchorS: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // Order alternating, so neither side always runs on a warmer cache.
  if (round % 2 === 0) {
    subjectS.push(await subject());
    anchorS.push(await anchor());
  } else {
    anchorS.push(await anchor());
    subjectS.push(await subject());
  }
}
const t0 = performance.now();
const cli = execFileSync(
  process.execPath,
  [LOOM, 'audit', 'verify', '--from', bundle, '--public-key', signer.publicKey],
  {
    encoding: 'utf8',
  },
);
const cliS = (performance.now() - t0) / 1000;
if (!cli.startsWith(`verified ${EVENTS} event(s)`)) throw new Error(`loom audit verify said: ${cli}`);
const bytes = statSync(bundle).size;
rmSync(dir, { recursive: true, force: true });

const s = summarize(subjectS).median;
const a = summarize(anchorS).median;
const rate = EVENTS / s;
const result = writeResult('audit-verify', {
  unit: 'seconds per 1 000 000 events (median)',
  subject: { label: 'verifyAuditExport over a 1 000 000-event JSONL export', median: s },
  anchor: { label: 'reading the same lines, JSON.parse and one SHA-256 of each', median: a },
  ratio: s / a,
  eventsPerSecond: rate,
  anchorEventsPerSecond: EVENTS / a,
  cli: {
    label: 'loom audit verify --from <export> --public-key <key>, process start included',
    seconds: cliS,
    eventsPerSecond: EVENTS / cliS,
  },
  exportBytes: bytes,
  target: { eventsPerSecondAtLeast: TARGET },
  pass: rate >= TARGET,
  notes: `medians over ${ROUNDS} interleaved rounds; one chain, a checkpoint every export; payloads shaped like a pack run's`,
});
console.log(JSON.stringify(result, null, 2));
