// Several hosts, one record: two real broker processes, each on its own instance directory, both
// on one PostgreSQL schema, driven at once over their real sockets. Every concurrency guarantee of
// docs/host.md, "Several hosts", is one test here.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandAnswer } from '@harness/protocol';
import { brokerRun } from '@harness/protocol/client';
import type { AuditEvent, PostgresTarget, Store } from '@harness/store';
import { openStoreTarget } from '@harness/store';
import { tempDir, until } from '@harness/test-utils';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { initInstance } from '../src/instance';
import type { ScopeFile } from '../src/scope';
import { type BrokerProcess, startBrokerProcess } from './broker-process';
import { writeLedgerWorkspace } from './ledger';
import { describePg, freshSchema, pgQuery, resetSchema } from './pg';

const SHARED: ScopeFile = { run: 'run-shared', agent: 'writer' };
const ROUNDS_APPROVAL = 200;

describePg('two brokers on one database', () => {
  let root: ReturnType<typeof tempDir>;
  let schema: { target: PostgresTarget; drop(): Promise<void> };
  let ledger: string;
  let instances: [string, string];
  let store: Store;
  const brokers: BrokerProcess[] = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    root = tempDir('host-two-');
    schema = await freshSchema('two_hosts');
    const written = writeLedgerWorkspace(root.path, {
      settings: 'permission: strict\npermission_overrides:\n  peek: open',
      write: { id: 'once', pattern: '^r[0-9]+$' },
      more: '- id: peek\n  argv: [echo, peek]\n  effects: read',
      grants: '[pack:w, w.once]',
    });
    ledger = written.ledger;
    instances = [join(root.path, 'host-a'), join(root.path, 'host-b')];
    for (const dir of instances) await initInstance(dir, written.workspace, { store: schema.target });
  });
  afterAll(async () => {
    root.cleanup();
    await schema.drop();
  });
  beforeEach(async () => {
    await resetSchema(schema.target.schema);
    if (existsSync(ledger)) writeFileSync(ledger, '');
    store = await openStoreTarget(schema.target);
  });
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    await Promise.all(brokers.splice(0).map((b) => b.exited));
    await store.close();
  });

  /** One broker per instance, serving `scopes[i]` (both the shared scope by default). */
  const start = async (scopes: [ScopeFile, ScopeFile] = [SHARED, SHARED]): Promise<[string, string]> => {
    const queues: [string, string] = [
      join(root.path, `q0-${brokers.length}.sock`),
      join(root.path, `q1-${brokers.length}.sock`),
    ];
    brokers.push(
      ...(await Promise.all(
        instances.map((dir, i) =>
          startBrokerProcess(dir, queues[i] as string, scopes[i] as ScopeFile, children),
        ),
      )),
    );
    return queues;
  };
  /** One call; the broker's answer (a failed delivery throws). */
  const call = async (queue: string, command: string, args: Record<string, unknown>, extra = {}) => {
    const r = await brokerRun(queue, { command, args, ...extra });
    if (!r.ok) throw new Error(`no answer from ${queue}: ${JSON.stringify(r.failure)}`);
    return r.value;
  };
  const receiptOf = (a: CommandAnswer) =>
    (a.body as { receipt: { loom_id: string; version: number; request_id: string } }).receipt;
  const count = async (sql: string): Promise<number> =>
    Number((await pgQuery(sql, [], schema.target.schema))[0]?.n);

  it('composing into one loom with expectedVersion: exactly one host wins each version, the other gets version_conflict [LA-41]', async () => {
    const [a, b] = await start();
    const loomId = receiptOf(
      await call(a, 'loom.compose', { request_id: 'seed', components: [{ ref: 'page:0' }] }),
    ).loom_id;
    const rounds = 40;
    for (let v = 1; v <= rounds; v++) {
      const answers = await Promise.all(
        [a, b].map((q, i) =>
          call(q, 'loom.compose', {
            request_id: `v${v}-${i}`,
            loom_id: loomId,
            expected_version: v,
            components: [{ ref: `page:${v}-${i}` }],
          }),
        ),
      );
      expect(answers.map((x) => x.code).sort(), `version ${v}`).toEqual(['ok', 'version_conflict']);
      const won = answers.find((x) => x.ok) as CommandAnswer;
      const lost = answers.find((x) => !x.ok) as CommandAnswer;
      expect(receiptOf(won).version).toBe(v + 1);
      expect(lost).toMatchObject({
        mayHaveLanded: false,
        body: { expected_version: v, current_version: v + 1 },
      });
    }
    expect((await store.inspect(loomId))?.version).toBe(rounds + 1);
    expect(await count('SELECT count(*) AS n FROM receipts')).toBe(rounds + 1);
  }, 120_000);

  it('composing into one loom without expectedVersion: no compose is lost, each takes its own version', async () => {
    const [a, b] = await start();
    const loomId = receiptOf(
      await call(a, 'loom.compose', { request_id: 'seed', components: [{ ref: 'page:0' }] }),
    ).loom_id;
    const perHost = 50;
    const burst = (q: string, host: string) =>
      Promise.all(
        Array.from({ length: perHost }, (_, i) =>
          call(q, 'loom.compose', {
            request_id: `${host}${i}`,
            loom_id: loomId,
            components: [{ ref: `page:${host}${i}` }],
          }),
        ),
      );
    const answers = (await Promise.all([burst(a, 'a'), burst(b, 'b')])).flat();
    expect(answers.filter((x) => !x.ok)).toEqual([]);
    const versions = answers.map((x) => receiptOf(x).version).sort((x, y) => x - y);
    expect(versions).toEqual(Array.from({ length: 2 * perHost }, (_, i) => i + 2));
    const view = await store.inspect(loomId);
    expect(view?.version).toBe(2 * perHost + 1);
    expect(view?.components).toHaveLength(2 * perHost + 1);
  }, 120_000);

  it('the same request_id retried on the other host replays the receipt and never commits twice [LA-100]', async () => {
    const [a, b] = await start();
    const args = (r: string) => ({ request_id: r, components: [{ ref: `page:${r}` }] });
    const first = await call(a, 'loom.compose', args('later'));
    const retried = await call(b, 'loom.compose', args('later'));
    expect(retried).toMatchObject({ ok: true, completed: [], body: { replayed: true } });
    expect(receiptOf(retried)).toEqual(receiptOf(first));
    // Sent to both at the same moment: one commits, the other waits for it and replays.
    const rounds = 30;
    for (let i = 0; i < rounds; i++) {
      const both = await Promise.all([a, b].map((q) => call(q, 'loom.compose', args(`same${i}`))));
      expect(both.map((x) => (x.body as { replayed: boolean }).replayed).sort(), `round ${i}`).toEqual([
        false,
        true,
      ]);
      expect(receiptOf(both[0] as CommandAnswer)).toEqual(receiptOf(both[1] as CommandAnswer));
    }
    expect(await count('SELECT count(*) AS n FROM receipts')).toBe(rounds + 1);
    expect(await count('SELECT count(*) AS n FROM looms')).toBe(rounds + 1);
    expect(await count('SELECT count(*) AS n FROM components')).toBe(rounds + 1);
  }, 120_000);

  it(`a strict call approved once runs once, though both hosts race to consume the approval (${ROUNDS_APPROVAL} rounds)`, async () => {
    const [a, b] = await start();
    let ran = 0;
    for (let i = 0; i < ROUNDS_APPROVAL; i++) {
      const args = { id: `r${i}` };
      const asked = await call(i % 2 ? a : b, 'w.once', args);
      expect(asked).toMatchObject({ ok: false, code: 'refused', reason: 'approval_required' });
      const approvalId = (asked.body as { approval: { id: string } }).approval.id;
      await store.decideApproval(approvalId, 'approved', 'person:test', 60_000);
      const race = await Promise.all([a, b].map((q) => call(q, 'w.once', args)));
      const codes = race.map((x) => (x.ok ? 'ran' : `${x.code}:${x.reason}`)).sort();
      expect(codes, `round ${i}`).toEqual(['ran', 'refused:approval_required']);
      ran++;
    }
    const lines = readFileSync(ledger, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(ran);
    expect(new Set(lines).size).toBe(ROUNDS_APPROVAL);
    expect(await count("SELECT count(*) AS n FROM approvals WHERE status = 'consumed'")).toBe(
      ROUNDS_APPROVAL,
    );
  }, 300_000);

  it('the audit holds every event of both hosts, each once, in one total order that a follower reads without a gap', async () => {
    const [a, b] = await start([
      { run: 'run-a', agent: 'writer' },
      { run: 'run-b', agent: 'writer' },
    ]);
    // A follower pages with `after` cursors while both hosts write, as `loom audit tail --follow` does.
    const followed: AuditEvent[] = [];
    let writing = true;
    const follower = (async () => {
      let cursor = 0;
      for (;;) {
        const done = !writing;
        const page = await store.queryAudit({ after: cursor, limit: 1000 });
        followed.push(...page.events);
        cursor = page.events.at(-1)?.seq ?? cursor;
        if (done && page.newer === null) return;
        // A follower polls the log: reading it again after a pause is the behaviour under test.
        if (page.newer === null) await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const perHost = 60;
    const burst = (q: string, host: string) =>
      Promise.all(
        Array.from({ length: perHost }, (_, i) =>
          i % 2
            ? call(q, 'w.peek', {})
            : call(q, 'loom.compose', {
                request_id: `${host}${i}`,
                components: [{ ref: `page:${host}${i}` }],
              }),
        ),
      );
    const answers = (await Promise.all([burst(a, 'a'), burst(b, 'b')])).flat();
    writing = false;
    await follower;
    expect(answers.filter((x) => !x.ok)).toEqual([]);

    const all = (await store.queryAudit({ limit: 1000 })).events;
    const seqs = all.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    // Every answered call has its run row, once, under the run of the host that answered it.
    for (const run of ['run-a', 'run-b']) {
      const rows = all.filter((e) => e.run === run && e.phase === 'run');
      const composes = rows.filter((e) => e.command === 'loom.compose').map((e) => e.payload.request_id);
      expect(new Set(composes).size, run).toBe(perHost / 2);
      expect(composes, run).toHaveLength(perHost / 2);
      const peeks = rows.filter((e) => e.command === 'w.peek').map((e) => e.payload.call_id);
      expect(new Set(peeks).size, run).toBe(perHost / 2);
      expect(peeks, run).toHaveLength(perHost / 2);
    }
    // The follower saw exactly the final log, in its order: no cursor stepped over a late commit.
    expect(followed.map((e) => e.seq)).toEqual(seqs);
  }, 120_000);

  it('a broker killed with SIGKILL mid-burst loses no acknowledged compose and duplicates none', async () => {
    const [a, b] = await start();
    const perHost = 120;
    const acked = new Map<string, CommandAnswer>();
    const send = (q: string, id: string) =>
      brokerRun(q, {
        command: 'loom.compose',
        args: { request_id: id, components: [{ ref: `page:${id}` }] },
      }).then((r) => {
        if (r.ok && r.value.ok) acked.set(id, r.value);
        return r;
      });
    const ids = (host: string) => Array.from({ length: perHost }, (_, i) => `${host}${i}`);
    const onA = ids('a').map((id) => send(a, id));
    const onB = ids('b').map((id) => send(b, id));
    await until(
      () => [...acked.keys()].filter((k) => k.startsWith('a')).length >= 30,
      'thirty composes acknowledged by A',
      {
        timeoutMs: 60_000,
        everyMs: 5,
      },
    );
    const killed = brokers[0] as BrokerProcess;
    killed.child.kill('SIGKILL');
    await killed.exited;
    await Promise.all([...onA, ...onB]);
    const ackedOnA = ids('a').filter((id) => acked.has(id));
    expect(ackedOnA.length).toBeGreaterThan(0);
    expect(ackedOnA.length, 'the burst was cut').toBeLessThan(perHost);
    // A COMMIT already in the server's socket buffer still lands after the client died: wait until
    // no session of this schema is inside a statement (B is idle now) before reading what landed.
    await until(async () => {
      const busy = await pgQuery(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state <> 'idle'",
        [`loom-host:${schema.target.schema}`],
      );
      return busy[0]?.n === 0;
    }, 'no session of the schema inside a statement');
    // What A never acknowledged, the client retries on B with the same request ids.
    const committedBefore = new Set(
      (await pgQuery('SELECT request_id FROM receipts', [], schema.target.schema)).map((r) => r.request_id),
    );
    let replayed = 0;
    for (const id of ids('a').filter((x) => !acked.has(x))) {
      const r = await call(b, 'loom.compose', { request_id: id, components: [{ ref: `page:${id}` }] });
      expect(r.ok, id).toBe(true);
      const wasReplay = (r.body as { replayed: boolean }).replayed;
      // A retry replays exactly the composes A committed without acknowledging them.
      expect(wasReplay, id).toBe(committedBefore.has(id));
      if (wasReplay) replayed++;
    }
    // Every acknowledged compose is there, with the receipt it was acknowledged with.
    for (const [id, answer] of acked) {
      const [row] = await pgQuery(
        'SELECT loom_id FROM receipts WHERE request_id = $1',
        [id],
        schema.target.schema,
      );
      expect(row?.loom_id, id).toBe(receiptOf(answer).loom_id);
    }
    // None twice: one receipt, one loom and one component per request id.
    const total = 2 * perHost;
    expect(await count('SELECT count(DISTINCT request_id) AS n FROM receipts')).toBe(total);
    expect(await count('SELECT count(*) AS n FROM receipts')).toBe(total);
    expect(await count('SELECT count(*) AS n FROM looms')).toBe(total);
    expect(await count('SELECT count(*) AS n FROM components')).toBe(total);
    process.stdout.write(
      `two hosts, SIGKILL mid-burst: ${ackedOnA.length}/${perHost} acknowledged by the killed host, ${replayed} committed there unacknowledged and replayed on the other\n`,
    );
  }, 180_000);
});
