// host-audit-query: pages of `Store.queryAudit` over 100 000 audit events, as a console pages and
// filters them, against the same queries on the same rows without the audit indexes (the schema
// before version 2), in the same run. Targets: the slowest query's median ≤ 50 ms; and the ratio
// indexed / unindexed time of the whole set ≤ 0.2.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarize, writeResult } from '@harness/bench-utils';
import { type AuditQuery, openStoreTarget, type Store } from '@harness/store';
import Database from 'better-sqlite3';

const EVENTS = 100_000;
const ROUNDS = 15;
const dir = mkdtempSync(join(tmpdir(), 'host-audit-bench-'));
const indexedFile = join(dir, 'indexed.db');
const plainFile = join(dir, 'plain.db');

// 100 000 events over 30 days: 10 agents, 40 commands (one rare: 1 in 1 000), 1 in 23 refused,
// 1 in 10 a listing; payloads shaped like a pack run's.
await (await openStoreTarget({ kind: 'sqlite', file: indexedFile })).close();
{
  const db = new Database(indexedFile);
  const insert = db.prepare(
    'INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)',
  );
  const start = Date.parse('2026-11-01T00:00:00Z');
  const span = 30 * 86_400_000;
  db.transaction(() => {
    for (let i = 0; i < EVENTS; i++) {
      const list = i % 10 === 0;
      const command = list ? '*' : i % 1000 === 7 ? 'rare.cmd' : `pack${i % 8}.cmd${i % 5}`;
      const refused = !list && i % 23 === 5;
      insert.run(
        new Date(start + Math.floor((i / EVENTS) * span)).toISOString(),
        `run-${Math.floor(i / 500)}`,
        `agent:a${i % 10}`,
        command,
        list ? 'loom:list' : `command:call:${command.replace('.', ':')}`,
        list ? 'list' : 'run',
        list ? 'listed' : refused ? 'refused' : 'ok',
        refused ? 'refused' : 'ok',
        refused ? 'approval_required' : null,
        JSON.stringify({
          provider: 'command',
          arg_names: ['path'],
          run: { status: 'ok', argv: ['cat', '--', `/srv/data/file-${i}.txt`], exitCode: 0, durationMs: 4 },
          listing: 'etag-0123456789abcdefghij',
        }),
      );
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
copyFileSync(indexedFile, plainFile);
{
  const db = new Database(plainFile);
  for (const i of ['audit_actor', 'audit_command', 'audit_outcome', 'audit_at']) db.exec(`DROP INDEX ${i}`);
  db.exec('VACUUM');
  db.close();
}

// What a console asks: the newest page, a page deep in the past, filters alone and combined, a
// rare command, a time window, and paging forward from the middle.
const QUERIES: [string, AuditQuery][] = [
  ['newest page', { limit: 100 }],
  ['page near the start (before cursor)', { limit: 100, before: 1_000 }],
  ['one agent, newest', { actor: 'agent:a3', limit: 100 }],
  ['one agent, page back from the middle', { actor: 'agent:a3', before: 50_000, limit: 100 }],
  ['one agent, forward from the middle (after cursor)', { actor: 'agent:a3', after: 50_000, limit: 100 }],
  ['command and outcome refused', { command: 'pack3.cmd3', outcome: 'refused', limit: 100 }],
  ['a rare command (1 in 1 000)', { command: 'rare.cmd', limit: 100 }],
  ['one agent, refused (1 in 230)', { actor: 'agent:a3', outcome: 'refused', limit: 100 }],
  ['refused since a day', { outcome: 'refused', since: '2026-11-29T00:00:00.000Z', limit: 100 }],
  [
    'one day window, one agent',
    { actor: 'agent:a5', since: '2026-11-10T00:00:00.000Z', until: '2026-11-11T00:00:00.000Z', limit: 100 },
  ],
];

const indexed = await openStoreTarget({ kind: 'sqlite', file: indexedFile });
const plain = await openStoreTarget({ kind: 'sqlite', file: plainFile });
// Opening migrates nothing (both are at the current version), so the plain file keeps no index.
const time = async (store: Store, q: AuditQuery): Promise<number> => {
  const t0 = performance.now();
  const page = await store.queryAudit(q);
  const ms = performance.now() - t0;
  if (page.events.length === 0) throw new Error(`the query returned nothing: ${JSON.stringify(q)}`);
  return ms;
};

const samples = new Map<string, { indexed: number[]; plain: number[] }>(
  QUERIES.map(([name]) => [name, { indexed: [], plain: [] }]),
);
for (let round = -2; round < ROUNDS; round++) {
  for (const [name, q] of QUERIES) {
    const a = await time(indexed, q);
    const b = await time(plain, q);
    if (round >= 0) {
      samples.get(name)?.indexed.push(a);
      samples.get(name)?.plain.push(b);
    }
  }
}
await indexed.close();
await plain.close();
rmSync(dir, { recursive: true, force: true });

const rows = QUERIES.map(([name]) => {
  const s = samples.get(name) ?? { indexed: [], plain: [] };
  return { query: name, indexedMs: summarize(s.indexed).median, unindexedMs: summarize(s.plain).median };
});
const worst = Math.max(...rows.map((r) => r.indexedMs));
const sum = (k: 'indexedMs' | 'unindexedMs') => rows.reduce((t, r) => t + r[k], 0);
const ratio = sum('indexedMs') / sum('unindexedMs');
const result = writeResult('host-audit-query', {
  unit: 'milliseconds per page (median)',
  subject: { label: 'Store.queryAudit with the audit indexes, 100 000 events', median: sum('indexedMs') },
  anchor: { label: 'the same queries without the audit indexes', median: sum('unindexedMs') },
  ratio,
  worstQueryMs: worst,
  queries: rows,
  target: { ratioAtMost: 0.2, worstQueryMsAtMost: 50 },
  pass: ratio <= 0.2 && worst <= 50,
  notes: `medians over ${ROUNDS} interleaved rounds; pages of 100; SQLite file of ${EVENTS} events`,
});
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
