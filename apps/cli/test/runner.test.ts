// `harness runner start|check|describe`, `harness runs` and `harness trigger` through the real bin:
// the acceptance runner file, a real HTTP delivery signed by the test, and a FAKE agent
// (packages/runner/test/fakes/fake-agent.mjs) recording what the run got.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RunStore, runnerPaths, signBody } from '@harness/runner';
import { repoRoot, until } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { baseEnv, bin, runCli, sandbox } from './helpers';
import { attrs, otlpReceiver } from './otlp-receiver';

const FAKE = join(repoRoot, 'packages', 'runner', 'test', 'fakes', 'fake-agent.mjs');
const SECRET = 'cli-webhook-secret';
let box: ReturnType<typeof sandbox>;
let records: string;
let config: string;
const children: ChildProcess[] = [];

function runnerFile(): string {
  return `listen: 127.0.0.1:0                 # the webhook receiver; POST /hooks/<source id>
sources:
  - id: gh
    scheme: github                  # github | gitea | forgejo
    secret_env: GH_WEBHOOK_SECRET   # the HMAC secret, read from this environment variable
    trusted_actors: [octocat]
harnesses:
  - id: review
    kind: command
    trigger: { source: gh, events: [pull_request] }
    argv: [/usr/bin/env, node, ${FAKE}, "--", "{{event.repo}}", "{{event.number}}", "{{event.file}}"]
    prompt_template: "Review pull request {{event.number}} of {{event.repo}}; the delivery is in {{event.file}}."
    prompt_delivery: stdin
    env: { FAKE_RECORD_DIR: ${records} }
  - id: numbered
    kind: command
    trigger: { source: gh, events: [push, pull_request] }
    argv: [/bin/echo, "{{event.number}}"]
`;
}

beforeEach(() => {
  box = sandbox();
  records = join(box.root, 'records');
  mkdirSync(records, { recursive: true });
  config = join(box.root, 'runner.yaml');
  writeFileSync(config, runnerFile());
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  box.cleanup();
});

function start(...extra: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [bin, 'runner', 'start', '--config', config, '--instance', box.instance, ...extra],
    {
      env: baseEnv(box.home, { GH_WEBHOOK_SECRET: SECRET }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) => {
      const url = /receiver on (http:\/\/\S+)\/hooks/.exec(line)?.[1];
      if (url) resolve({ url, child });
      else reject(new Error(`unexpected first line: ${line}`));
    });
    child.once('exit', (code) => reject(new Error(`runner exited ${code}`)));
  });
}

async function deliver(url: string, event: string, file: string, delivery: string): Promise<number> {
  const body = readFileSync(join(repoRoot, 'fixtures', 'webhooks', 'github', file), 'utf8');
  const res = await fetch(`${url}/hooks/gh`, {
    method: 'POST',
    headers: {
      'x-github-event': event,
      'x-github-delivery': delivery,
      'x-hub-signature-256': signBody('github', SECRET, body),
    },
    body,
  });
  return res.status;
}

async function runs(): Promise<Record<string, unknown>[]> {
  const r = await runCli(['runs', '--json', '--instance', box.instance], { home: box.home });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

/** The runs, once `ok` holds of them (asked again every 100 ms for up to 30 s). */
function runsWhen(ok: (list: Record<string, unknown>[]) => boolean, what: string) {
  return until(
    async () => {
      const list = await runs();
      return ok(list) && list;
    },
    what,
    { timeoutMs: 30_000, everyMs: 100 },
  );
}

describe('harness runner start and harness runs', () => {
  it('runs the acceptance file on a real delivery and lists the run as JSON', async () => {
    const { url, child } = await start();
    expect(await deliver(url, 'pull_request', 'pr_opened.json', 'pr-1')).toBe(202);
    const list = await runsWhen(
      (l) => l.length === 2 && l.every((r) => r.status !== 'pending' && r.status !== 'running'),
      'both runs to settle',
    );
    const review = list.find((r) => r.harness === 'review') as Record<string, unknown>;
    expect(review).toMatchObject({
      status: 'succeeded',
      reason: null,
      exit_code: 0,
      trigger: 'webhook',
      source: 'gh',
      delivery: 'pr-1',
      prompt_delivery: 'stdin',
      stdin_is_prompt: true,
    });
    for (const key of ['id', 'harness', 'status', 'reason', 'exit_code'])
      expect(Object.keys(review)).toContain(key);
    const text = await runCli(['runs', '--instance', box.instance], { home: box.home });
    expect(text.stdout.split('\n')).toContain(
      `${review.id}  review  succeeded  exit 0  webhook  source gh  delivery pr-1  ${review.created_at}`,
    );
    const rec = JSON.parse(readFileSync(join(records, `${review.id}.json`), 'utf8'));
    const pr = JSON.parse(
      readFileSync(join(repoRoot, 'fixtures', 'webhooks', 'github', 'pr_opened.json'), 'utf8'),
    );
    const file = join(box.instance, 'runner', 'events', 'gh', 'pr-1.json');
    expect(rec.argv).toEqual(['--', pr.repository.full_name, String(pr.number), file]);
    expect(Buffer.from(rec.stdin, 'base64').toString()).toBe(
      `Review pull request ${pr.number} of ${pr.repository.full_name}; the delivery is in ${file}.`,
    );
    expect(rec.tty).toEqual({ 0: false, 1: true, 2: true });
    child.kill('SIGTERM');
    expect(await new Promise((r) => child.once('exit', r))).toBe(0);
  });

  it('exports a span of each run, with the program run under it and nothing from the event, with --otel', async () => {
    const receiver = await otlpReceiver();
    try {
      const { url, child } = await start('--otel', receiver.url);
      expect(await deliver(url, 'pull_request', 'pr_opened.json', 'pr-otel')).toBe(202);
      const list = await runsWhen(
        (l) => l.length === 2 && l.every((r) => r.status !== 'pending' && r.status !== 'running'),
        'both runs to settle',
      );
      // Stopping the runner exports what it still holds.
      child.kill('SIGTERM');
      expect(await new Promise((r) => child.once('exit', r))).toBe(0);
      await receiver.until(() => receiver.spans.filter((s) => s.name.startsWith('run ')).length === 2);
      const review = list.find((r) => r.harness === 'review') as Record<string, unknown>;
      const run = receiver.spans.find((s) => s.name === 'run review');
      expect(run?.kind).toBe(5); // CONSUMER
      expect(attrs(run?.attributes ?? [])).toEqual({
        'harness.runner.harness': 'review',
        'harness.run.id': review.id,
        'harness.run.trigger': 'webhook',
        'harness.run.status': 'succeeded',
        'harness.run.source': 'gh',
        'harness.run.delivery': 'pr-otel',
        'process.exit.code': 0,
      });
      expect(BigInt(run?.startTimeUnixNano ?? 0) / 1_000_000n).toBe(
        BigInt(Date.parse(review.created_at as string)),
      );
      const exec = receiver.spans.find((s) => s.name === 'exec review');
      expect(exec).toMatchObject({ traceId: run?.traceId, parentSpanId: run?.spanId });
      const pr = JSON.parse(
        readFileSync(join(repoRoot, 'fixtures', 'webhooks', 'github', 'pr_opened.json'), 'utf8'),
      );
      for (const body of receiver.raw) {
        expect(body).not.toContain(pr.repository.full_name);
        expect(body).not.toContain('Review pull request');
      }
    } finally {
      await receiver.close();
    }
  });

  it('shows a template_unresolved skip with its path in harness runs [TM-82]', async () => {
    const { url } = await start();
    expect(await deliver(url, 'push', 'push.json', 'push-1')).toBe(202);
    const list = await runsWhen((l) => l.length === 1 && l[0]?.status === 'skipped', 'the run to be skipped');
    expect(list[0]).toMatchObject({
      harness: 'numbered',
      status: 'skipped',
      reason: 'template_unresolved',
      path: 'event.number',
      exit_code: null,
    });
    const text = await runCli(['runs', '--instance', box.instance], { home: box.home });
    expect(text.stdout).toBe(
      `${list[0]?.id}  numbered  skipped  template_unresolved: event.number  webhook  source gh  delivery push-1  ${list[0]?.created_at}\n`,
    );
  });

  it('shows under an observed run what its transcript says, and why another run was not observed [TM-121]', async () => {
    const store = new RunStore(runnerPaths(box.instance).db);
    store.insert({
      id: 'run-pi',
      harness: 'agent',
      status: 'succeeded',
      trigger: 'manual',
      exit_code: 0,
      observation: {
        status: 'read',
        source: 'pi',
        file: '/h/.pi/agent/sessions/--w--/s.jsonl',
        final_message: 'The tool said\nhello-from-tool. Done.',
        tool_calls: 1,
        tools: { bash: 1 },
        tokens: { input: 1713, output: 49 },
        unreadable_lines: 0,
      },
    });
    store.insert({
      id: 'run-omp',
      harness: 'other',
      status: 'succeeded',
      trigger: 'manual',
      observation: { status: 'unavailable', source: 'omp', message: 'omp is not observed: why' },
    });
    store.close();
    const text = await runCli(['runs', '--instance', box.instance], { home: box.home });
    const lines = text.stdout.split('\n');
    expect(lines[1]).toBe(
      '    pi: 1 tool call, 1713 in / 49 out tokens; final: "The tool said hello-from-tool. Done."',
    );
    expect(lines[3]).toBe('    not observed (omp): omp is not observed: why');
    const json = JSON.parse(
      (await runCli(['runs', '--json', '--instance', box.instance], { home: box.home })).stdout,
    );
    expect(json[0].observation).toMatchObject({ status: 'read', tools: { bash: 1 } });
  });

  it('prints a delivery id that is not plain printable text quoted, its control characters escaped', async () => {
    const store = new RunStore(runnerPaths(box.instance).db);
    store.insert({
      id: 'run-odd',
      harness: 'review',
      status: 'pending',
      trigger: 'webhook',
      source: 'gh',
      delivery: 'a b\u009b31m\u0007',
    });
    store.close();
    const text = await runCli(['runs', '--instance', box.instance], { home: box.home });
    expect(text.stdout).toMatch(
      /^run-odd {2}review {2}pending {2}webhook {2}source gh {2}delivery "a b\\u009b31m\\u0007" {2}\S+\n$/,
    );
  });

  it('refuses to start when a source secret variable is unset, naming it', async () => {
    const r = await runCli(['runner', 'start', '--config', config, '--instance', box.instance], {
      home: box.home,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('the environment variable GH_WEBHOOK_SECRET (its secret_env) is not set');
  });
});

describe('harness trigger', () => {
  it('replays a stored envelope, extracting typed again from its body and ignoring an edited typed', async () => {
    const { url, child } = await start();
    expect(await deliver(url, 'pull_request', 'pr_opened.json', 'pr-2')).toBe(202);
    await runsWhen((l) => l.length === 2 && l.every((r) => r.status === 'succeeded'), 'both runs to succeed');
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    const file = join(box.instance, 'runner', 'events', 'gh', 'pr-2.json');
    const envelope = JSON.parse(readFileSync(file, 'utf8'));
    envelope.typed.repo = 'evil/--rm';
    envelope.typed.number = 1;
    const edited = join(box.root, 'edited.json');
    writeFileSync(edited, JSON.stringify(envelope));
    const r = await runCli(
      ['trigger', 'review', '--config', config, '--event', edited, '--instance', box.instance, '--json'],
      { home: box.home },
    );
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout);
    expect(run).toMatchObject({
      harness: 'review',
      status: 'succeeded',
      trigger: 'manual',
      source: 'gh',
      delivery: null,
      event_file: edited,
    });
    expect(JSON.parse(readFileSync(join(records, `${run.id}.json`), 'utf8')).argv).toEqual([
      '--',
      envelope.webhook.body.repository.full_name,
      String(envelope.webhook.body.number),
      edited,
    ]);
    // As text: the outcome, then how it started, as `harness runs` words it.
    const text = await runCli(
      ['trigger', 'review', '--config', config, '--event', edited, '--instance', box.instance],
      { home: box.home },
    );
    expect(text.stdout).toMatch(/^run \S+ \(review\): succeeded, exit 0; manual {2}source gh\n$/);
  });

  it('refuses a plain start with an unresolved required value, recording nothing [TM-81]', async () => {
    const r = await runCli(['trigger', 'numbered', '--config', config, '--instance', box.instance], {
      home: box.home,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'harness: harness numbered: template_unresolved: {{event.number}} has no value in this run\n',
    );
    expect(existsSync(join(box.instance, 'runner', 'runs.db'))).toBe(true);
    expect(await runs()).toEqual([]);
  });
});

describe('harness runner check and describe', () => {
  it('reports each problem of a runner file as file:line:column', async () => {
    writeFileSync(config, 'harnesses:\n  - id: g\n    kind: generic\n    shell: date\n    prompt: hi\n');
    const r = await runCli(['runner', 'check', '--config', config], { home: box.home });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(`^${config}:5:5: harnesses\\[0\\]: a generic harness runs sh -c and never an agent`),
    );
  });

  it('shows every field of a harness [TM-128]', async () => {
    const r = await runCli(['runner', 'describe', 'review', '--config', config, '--json'], {
      home: box.home,
    });
    expect(r.code).toBe(0);
    expect(Object.keys(JSON.parse(r.stdout))).toEqual([
      'id',
      'kind',
      'when',
      'argv',
      'args',
      'shell',
      'one_shot',
      'transcripts',
      'prompt',
      'prompt_delivery',
      'untrusted_inline',
      'model',
      'workdir',
      'env',
      'env_inherit',
      'timeout_ms',
      'max_output_bytes',
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      prompt_delivery: 'stdin',
      env: ['FAKE_RECORD_DIR'],
      untrusted_inline: false,
    });
  });
});

describe('harness doctor --runner-config', () => {
  it('adds the runner rows, with a warn row for a harness that sets untrusted_inline [TM-129]', async () => {
    writeFileSync(
      config,
      `${runnerFile()}  - id: triage
    kind: claude-code
    trigger: { source: gh, events: [issues] }
    untrusted_inline: true
    prompt_template: "Triage: {{untrusted event.title}}"
`,
    );
    const r = await runCli(['doctor', '--json', '--runner-config', config, '--instance', box.instance], {
      home: box.home,
    });
    const checks = (JSON.parse(r.stdout).checks as { name: string; status: string; detail: string }[]).filter(
      (c) => c.name.startsWith('runner'),
    );
    expect(checks).toEqual([
      { name: 'runner config', status: 'ok', detail: `${config}: 3 harness(es)` },
      {
        name: 'runner secret gh',
        status: 'warn',
        detail: 'GH_WEBHOOK_SECRET is not set: runner start refuses to start without it',
      },
      {
        name: 'runner claude',
        status: 'warn',
        detail: 'claude not found on PATH: claude-code harnesses will fail to start',
      },
      {
        name: 'runner untrusted_inline',
        status: 'warn',
        detail:
          'harness triage may put free text from events in its prompt (inside the untrusted fence); prefer {{event.file}}',
      },
    ]);
  });
});
