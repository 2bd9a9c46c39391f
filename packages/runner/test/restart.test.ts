// A runner killed (SIGKILL) between the 202 and the spawn: the envelope and the pending run are on
// disk, and the next start runs it. A run that was running when the runner died is marked failed
// with reason runner_restarted. And a pending run an earlier version left in an old runs.db.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { writeEnvelope } from '@harness/events/node';
import { repoRoot, tempDir, until } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { signBody } from '../src/signature';
import { RunStore } from '../src/store';
import { Supervisor } from '../src/supervisor';
import { fakeAgents, mustLoad } from './helpers';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function startRunner(file: string, instance: string, env: Record<string, string>): Promise<string> {
  // node itself (not the tsx wrapper), so SIGKILL reaches the runner process.
  const args = [
    '--import',
    'tsx',
    '--conditions=@harness/source',
    join(import.meta.dirname, 'fakes', 'start-runner.ts'),
    file,
    instance,
  ];
  const child = spawn(process.execPath, args, {
    cwd: join(import.meta.dirname, '..'),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`runner exited ${code}`)));
  });
}

async function post(url: string, event: string, body: string, delivery: string) {
  const res = await fetch(`${url}/hooks/gh`, {
    method: 'POST',
    headers: {
      'x-github-event': event,
      'x-github-delivery': delivery,
      'x-hub-signature-256': signBody('github', 's3cret', body),
    },
    body,
  });
  return { status: res.status, json: (await res.json()) as { runs: string[] } };
}

// Under load a runner's start takes seconds: its waits end only at the test's own timeout.
const RUNNER_START_MS = 170_000;

describe('a runner killed between the 202 and the spawn', () => {
  it('keeps the envelope and the pending run, the next start runs it, and a replay of its body starts nothing [SEC-18]', async () => {
    const fakes = fakeAgents();
    const instance = tempDir('runner-instance-');
    const file = join(fakes.dir, 'runner.yaml');
    writeFileSync(
      file,
      `listen: 127.0.0.1:0
concurrency: 1
sources: [{ id: gh, scheme: github, secret_env: GH_SECRET }]
harnesses:
  - { id: block, kind: command, trigger: { source: gh, events: [push] }, argv: [/bin/sleep, "30"] }
  - id: rec
    kind: command
    trigger: { source: gh, events: [release] }
    argv: [${join(fakes.bin, 'record')}, "{{event.file}}"]
    env: { FAKE_RECORD_DIR: ${fakes.records} }
`,
    );
    const env = { GH_SECRET: 's3cret', PATH: fakes.path };
    const first = await startRunner(file, instance.path, env);
    const push = readFileSync(join(repoRoot, 'fixtures', 'webhooks', 'github', 'push.json'), 'utf8');
    const release = readFileSync(
      join(repoRoot, 'fixtures', 'webhooks', 'github', 'release_published.json'),
      'utf8',
    );
    const blocking = await post(first, 'push', push, 'push-1');
    expect(blocking.status).toBe(202);
    const accepted = await post(first, 'release', release, 'rel-1');
    expect(accepted.status).toBe(202);
    children[0]?.kill('SIGKILL');
    await new Promise((r) => children[0]?.once('exit', r));

    const envelope = join(instance.path, 'runner', 'events', 'gh', 'rel-1.json');
    expect(existsSync(envelope)).toBe(true);
    const db = join(instance.path, 'runner', 'runs.db');
    const before = new RunStore(db);
    const pendingId = accepted.json.runs[0] as string;
    expect(before.get(pendingId)?.status).toBe('pending');
    before.close();

    const second = await startRunner(file, instance.path, env);
    await until(
      () => existsSync(join(fakes.records, `${pendingId}.json`)),
      'the pending run to be run by the next start',
      RUNNER_START_MS,
    );
    expect(fakes.read(pendingId).argv).toEqual([envelope]);
    const after = new RunStore(db);
    await until(
      () => after.get(pendingId)?.status === 'succeeded',
      'the pending run to succeed',
      RUNNER_START_MS,
    );
    expect(after.get(blocking.json.runs[0] as string)).toMatchObject({
      status: 'failed',
      reason: 'runner_restarted',
    });
    // The body accepted before the kill is remembered: replayed under a new delivery id, it runs nothing.
    const replay = await fetch(`${second}/hooks/gh`, {
      method: 'POST',
      headers: {
        'x-github-event': 'release',
        'x-github-delivery': 'rel-2',
        'x-hub-signature-256': signBody('github', 's3cret', release),
      },
      body: release,
    });
    expect([replay.status, await replay.json()]).toEqual([
      200,
      { duplicate: true, delivery: 'rel-2', event_id: 'rel-1' },
    ]);
    expect(after.list().length).toBe(2);
    after.close();
    fakes.cleanup();
    instance.cleanup();
    // Two runner starts through tsx take seconds each at a load of 20: the bound is a failsafe only.
  }, 180_000);
});

describe('a pending run an earlier version left in runs.db', () => {
  it('runs it after the migration with run.source still webhook.gh in its argv, and records its source as gh [TM-21]', async () => {
    const fakes = fakeAgents();
    const instance = tempDir('runner-instance-');
    const events = join(instance.path, 'runner', 'events', 'gh');
    mkdirSync(events, { recursive: true });
    const envelope = join(events, 'd-old.json');
    await writeEnvelope(envelope, {
      source: 'webhook.gh',
      scheme: 'github',
      event: 'push',
      delivery: 'd-old',
      body: JSON.parse(readFileSync(join(repoRoot, 'fixtures', 'webhooks', 'github', 'push.json'), 'utf8')),
      trustedActors: [],
    });
    // The runs table as the previous version wrote it: the source's name, and a delivery column.
    const old = new Database(join(instance.path, 'runner', 'runs.db'));
    old.exec(`CREATE TABLE runs (
      id TEXT PRIMARY KEY, harness TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, path TEXT,
      trigger TEXT NOT NULL, source TEXT, event_file TEXT, delivery TEXT,
      stdin_is_prompt INTEGER NOT NULL DEFAULT 0, exit_code INTEGER, signal TEXT,
      created_at TEXT NOT NULL, started_at TEXT, ended_at TEXT, duration_ms INTEGER, log_file TEXT, message TEXT,
      observation TEXT)`);
    old
      .prepare(
        `INSERT INTO runs (id, harness, status, trigger, source, event_file, created_at)
         VALUES ('r-old', 'rec', 'pending', 'webhook', 'webhook.gh', ?, '2026-09-21T00:00:00.000Z')`,
      )
      .run(envelope);
    old.close();
    const config = mustLoad({
      sources: [{ id: 'gh', scheme: 'github', secret_env: 'GH_SECRET' }],
      harnesses: [
        {
          id: 'rec',
          kind: 'command',
          trigger: { source: 'gh', events: ['push'] },
          argv: [join(fakes.bin, 'record'), '{{run.source}}', '{{event.source}}', '{{event.file}}'],
          env: { FAKE_RECORD_DIR: fakes.records },
          workdir: fakes.dir,
        },
      ],
    });
    const s = new Supervisor(config, {
      instanceDir: instance.path,
      env: { PATH: fakes.path, GH_SECRET: 's3cret' },
      log: () => undefined,
    });
    try {
      await s.start();
      await s.idle();
      expect(fakes.read('r-old').argv).toEqual(['webhook.gh', 'webhook.gh', envelope]);
      expect(s.store.get('r-old')).toMatchObject({
        status: 'succeeded',
        source: 'gh',
        delivery: null,
        prompt_delivery: 'none',
      });
    } finally {
      await s.stop();
      fakes.cleanup();
      instance.cleanup();
    }
  });
});
