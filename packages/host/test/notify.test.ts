// Announcing approvals (docs/notify.md): a real broker over a real instance and SQLite store, a
// real workspace with a `notify` block, and real HTTP receivers on 127.0.0.1. Every wait is on an
// event: a request arriving at a receiver, a call's answer, a row of the delivery log written.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CommandAnswer } from '@harness/protocol';
import { brokerRun } from '@harness/protocol/client';
import { type ApprovalNotice, openStoreTarget } from '@harness/store';
import { repoRoot, tempDir, until } from '@harness/test-utils';
import { type Received, type Receiver, startReceiver } from '@harness/test-utils/receiver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideApproval, listApprovals, type RunningBroker, startBroker } from '../src/api';
import { initInstance, readInstance } from '../src/instance';

const SECRET_ENV = 'HARNESS_TEST_NOTIFY_SECRET';
const SECRET = 'whsec-test-0123456789';

/** A workspace with two strict commands (one whose approvals expire in 1s) and `notify` as given. */
const workspaceWith = (notify: string): string => `version: 1
sandbox_mode: off
${notify}
command_packs:
  - id: notes
    permission: strict
    commands:
      - id: write
        argv: [echo, 'wrote:{{line}}']
        effects: write
  - id: brief
    permission: strict
    approval_timeout: 1s
    commands:
      - id: write
        argv: [echo, 'brief:{{line}}']
        effects: write
  - id: shown
    permission: strict
    commands:
      - id: write
        argv: [echo, 'shown:{{line}}']
        display: 'write "{{line}}"'
        preview: { command: peek }
        effects: write
      - id: peek
        argv: [printf, 'staged.txt | 1 +\\n1 file changed\\n']
        effects: read
agents:
  - id: scribe
    grants: [notes.write, brief.write, shown.write]
`;

let dir: ReturnType<typeof tempDir>;
let receiver: Receiver;
const brokers: RunningBroker[] = [];

beforeEach(async () => {
  dir = tempDir('host-notify-');
  receiver = await startReceiver();
  process.env[SECRET_ENV] = SECRET;
});
afterEach(async () => {
  receiver.release();
  for (const b of brokers.splice(0)) await b.close();
  await receiver.close();
  delete process.env[SECRET_ENV];
  dir.cleanup();
});

/** An instance serving the workspace with `notify`, and a broker on it. */
async function brokerWith(
  notify: string,
  instanceName = 'instance',
): Promise<{ broker: RunningBroker; instance: string }> {
  const workspace = join(dir.path, 'workspace.yaml');
  writeFileSync(workspace, workspaceWith(notify));
  const instance = join(dir.path, instanceName);
  await initInstance(instance, workspace);
  return { broker: await start(instance, 'a.sock'), instance };
}

async function start(instance: string, socket: string): Promise<RunningBroker> {
  const broker = await startBroker({
    instanceDir: instance,
    socketPath: join(dir.path, 'run', socket),
    scope: { run: 'run-n', agent: 'scribe' },
  });
  brokers.push(broker);
  return broker;
}

async function call(broker: RunningBroker, command: string, line: string): Promise<CommandAnswer> {
  const r = await brokerRun(broker.socketPath, { command, args: { line } });
  if (!r.ok) throw new Error(`no answer: ${JSON.stringify(r)}`);
  return r.value;
}

const webhook = (path: string, extra = ''): string => `  - kind: webhook
    url: ${receiver.url(path)}
    secret_env: ${SECRET_ENV}${extra}`;

/** The event of a webhook request. */
const eventOf = (r: Received): string => (JSON.parse(r.body) as { event: string }).event;
const at = (path: string, event: string) => (r: Received) => r.path === path && eventOf(r) === event;

type Verify = (secret: string, headers: Received['headers'], body: string) => boolean;

/** The receiver's check docs/notify.md gives (its one `js` block), loaded as a module and run as written. */
async function docsVerifier(): Promise<Verify> {
  const doc = readFileSync(join(repoRoot, 'docs', 'notify.md'), 'utf8');
  const snippet = /```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (snippet === undefined) throw new Error('docs/notify.md has no js block');
  const file = join(dir.path, 'verify.mjs');
  writeFileSync(file, snippet);
  return ((await import(pathToFileURL(file).href)) as { verifyHarnessSignature: Verify })
    .verifyHarnessSignature;
}

/** The delivery log of one approval, as the instance's store holds it. */
async function notices(instance: string, approval: string): Promise<ApprovalNotice[]> {
  const store = await openStoreTarget(readInstance(instance).store);
  try {
    return await store.listNotices(approval);
  } finally {
    await store.close();
  }
}

/** Resolves once the delivery log of `approval` satisfies `check`, reading it until then. */
async function logUntil(
  instance: string,
  approval: string,
  check: (rows: ApprovalNotice[]) => boolean,
): Promise<ApprovalNotice[]> {
  let rows: ApprovalNotice[] = [];
  await until(
    async () => {
      rows = await notices(instance, approval);
      return check(rows);
    },
    () => `the delivery log to match; it holds ${JSON.stringify(rows)}`,
    { everyMs: 50 },
  );
  return rows;
}

async function pendingId(instance: string): Promise<string> {
  const [pending] = await listApprovals(instance);
  if (pending === undefined) throw new Error('no pending approval');
  return pending.id;
}

describe('a webhook target', () => {
  it('is sent approval.pending, signed as docs/notify.md verifies it and without argument values, then approval.approved once a person approves', async () => {
    const { broker, instance } = await brokerWith(
      `notify:\n  link: https://console.example.com/\n  targets:\n${webhook('/hook')}`,
    );
    const answer = await call(broker, 'notes.write', 'the secret plan');
    expect(answer.reason).toBe('approval_required');
    const id = await pendingId(instance);

    const pending = await receiver.next(at('/hook', 'approval.pending'));
    const verified = await docsVerifier();
    expect(verified(SECRET, pending.headers, pending.body)).toBe(true);
    expect(verified('another-secret', pending.headers, pending.body)).toBe(false);
    expect(verified(SECRET, pending.headers, `${pending.body} `)).toBe(false);
    expect(pending.headers['x-harness-event']).toBe('approval.pending');
    const body = JSON.parse(pending.body);
    expect(body).toMatchObject({
      event: 'approval.pending',
      link: `https://console.example.com/#/approvals/${id}`,
      approval: {
        id,
        command: 'notes.write',
        agent: 'scribe',
        run: 'run-n',
        tier: 'strict',
        status: 'pending',
      },
    });
    expect(body.approval.plan_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(body.approval).not.toHaveProperty('args');
    expect(body.approval).not.toHaveProperty('argv');
    expect(pending.body).not.toContain('the secret plan');

    await decideApproval(instance, id, 'approved', 'person:ada');
    const approved = await receiver.next(at('/hook', 'approval.approved'));
    expect(verified(SECRET, approved.headers, approved.body)).toBe(true);
    expect(JSON.parse(approved.body).approval).toMatchObject({
      id,
      status: 'approved',
      decided_by: 'person:ada',
    });

    const rows = await logUntil(
      instance,
      id,
      (r) => r.length === 2 && r.every((n) => n.status === 'delivered'),
    );
    expect(rows.map((n) => [n.target, n.event, n.status, n.attempts, n.http_status, n.error])).toEqual([
      ['webhook', 'approval.pending', 'delivered', 1, 200, null],
      ['webhook', 'approval.approved', 'delivered', 1, 200, null],
    ]);
  });

  it('carries the argument values and argv with include_args: true, and no link without notify.link', async () => {
    const { broker, instance } = await brokerWith(
      `notify:\n  targets:\n${webhook('/args', '\n    include_args: true')}`,
    );
    await call(broker, 'notes.write', 'hello there');
    const pending = await receiver.next(at('/args', 'approval.pending'));
    const body = JSON.parse(pending.body);
    expect(body.approval.args).toEqual({ line: 'hello there' });
    expect(body.approval.argv).toEqual(['echo', 'wrote:hello there']);
    expect(body).not.toHaveProperty('link');
    await logUntil(instance, body.approval.id, (r) => r[0]?.status === 'delivered');
  });

  it('announces approval.expired when nobody decides within approval_timeout', async () => {
    const { broker, instance } = await brokerWith(`notify:\n  targets:\n${webhook('/hook')}`);
    expect((await call(broker, 'brief.write', 'soon gone')).reason).toBe('approval_required');
    const id = await pendingId(instance);
    const expired = await receiver.next(at('/hook', 'approval.expired'));
    expect(JSON.parse(expired.body).approval).toMatchObject({ id, command: 'brief.write' });
    expect(receiver.received.filter((r) => eventOf(r) === 'approval.pending')).toHaveLength(1);
    const rows = await logUntil(
      instance,
      id,
      (r) => r.length === 2 && r.every((n) => n.status === 'delivered'),
    );
    expect(rows.map((n) => n.event)).toEqual(['approval.pending', 'approval.expired']);
  });
});

describe('a target that hangs or fails', () => {
  it('delays neither the call, nor the approval, nor another target, and is retried then logged failed', async () => {
    receiver.answer('/hang', 'hold');
    receiver.answer('/broken', 'fail');
    const { broker, instance } = await brokerWith(
      `notify:\n  timeout: 1s\n  attempts: 2\n  targets:\n${webhook('/hang', '\n    name: hangs')}\n${webhook('/broken', '\n    name: broken')}\n${webhook('/hook', '\n    name: fine')}`,
    );
    const answer = call(broker, 'notes.write', 'x');
    const held = await receiver.next((r) => r.path === '/hang');
    // The call's answer comes back while the hanging target still holds its request.
    expect((await answer).reason).toBe('approval_required');
    expect(receiver.held).toBeGreaterThan(0);
    await receiver.next(at('/hook', 'approval.pending'));
    expect(eventOf(held)).toBe('approval.pending');
    const id = await pendingId(instance);

    const rows = await logUntil(instance, id, (r) => r.filter((n) => n.status !== 'sending').length === 3);
    const byTarget = Object.fromEntries(
      rows.map((n) => [n.target, [n.status, n.attempts, n.http_status, n.error]]),
    );
    expect(byTarget).toEqual({
      hangs: ['failed', 2, null, 'timeout after 1s'],
      broken: ['failed', 2, 500, 'HTTP 500'],
      fine: ['delivered', 1, 200, null],
    });
    expect(receiver.received.filter((r) => r.path === '/broken')).toHaveLength(2);
    // The approval itself is untouched: still pending, and a person may decide it.
    expect((await decideApproval(instance, id, 'denied', 'person:ada')).status).toBe('denied');
  });

  it('records a refused connection in a few words that name no URL', async () => {
    const closed = await startReceiver();
    const url = closed.url('/gone?token=tk_in_url');
    await closed.close();
    const { broker, instance } = await brokerWith(
      `notify:\n  attempts: 2\n  targets:\n  - kind: webhook\n    url: ${url}\n    secret_env: ${SECRET_ENV}`,
    );
    await call(broker, 'notes.write', 'x');
    const id = await pendingId(instance);
    const [row] = await logUntil(instance, id, (r) => r[0]?.status === 'failed');
    expect(row).toMatchObject({ attempts: 2, http_status: null, error: 'connection refused' });
  });

  it('records a target whose secret is unset as failed without sending anything', async () => {
    const { broker, instance } = await brokerWith(
      `notify:\n  targets:\n  - kind: webhook\n    url: ${receiver.url('/nosecret')}\n    secret_env: HARNESS_TEST_NOTIFY_UNSET\n${webhook('/hook')}`,
    );
    await call(broker, 'notes.write', 'x');
    const id = await pendingId(instance);
    const rows = await logUntil(
      instance,
      id,
      (r) => r.length === 2 && r.every((n) => n.status !== 'sending'),
    );
    expect(rows.find((n) => n.target === 'webhook')).toMatchObject({
      status: 'failed',
      attempts: 0,
      error: 'HARNESS_TEST_NOTIFY_UNSET is not set',
    });
    expect(receiver.received.some((r) => r.path === '/nosecret')).toBe(false);
  });
});

describe('ntfy and slack targets', () => {
  it('send ntfy its plain-text message with Title, Click, Tags, Priority and the bearer token', async () => {
    process.env.HARNESS_TEST_NTFY_TOKEN = 'tk_ntfy_secret';
    try {
      const { broker, instance } = await brokerWith(
        `notify:\n  link: https://console.example.com/\n  targets:\n  - kind: ntfy\n    url: ${receiver.url('/approvals-topic')}\n    token_env: HARNESS_TEST_NTFY_TOKEN`,
      );
      await call(broker, 'notes.write', 'quiet value');
      const id = await pendingId(instance);
      const got = await receiver.next((r) => r.path === '/approvals-topic');
      expect(got.headers).toMatchObject({
        title: 'Approval needed: notes.write by agent scribe',
        click: `https://console.example.com/#/approvals/${id}`,
        tags: 'lock',
        priority: 'high',
        authorization: 'Bearer tk_ntfy_secret',
      });
      expect(got.body.split('\n')[0]).toBe('Approval needed: notes.write by agent scribe');
      expect(got.body).toContain(`Approval ${id}`);
      expect(got.body).not.toContain('quiet value');
      await logUntil(instance, id, (r) => r[0]?.status === 'delivered');
    } finally {
      delete process.env.HARNESS_TEST_NTFY_TOKEN;
    }
  });

  it('send slack { text, blocks } to the URL its url_env names', async () => {
    process.env.HARNESS_TEST_SLACK_URL = receiver.url('/services/T000/B000/XXXX');
    try {
      const { broker, instance } = await brokerWith(
        `notify:\n  link: https://console.example.com/\n  targets:\n  - kind: slack\n    url_env: HARNESS_TEST_SLACK_URL\n    include_args: true`,
      );
      await call(broker, 'notes.write', 'a<b');
      const id = await pendingId(instance);
      const got = await receiver.next((r) => r.path === '/services/T000/B000/XXXX');
      expect(got.headers['content-type']).toBe('application/json');
      const body = JSON.parse(got.body);
      expect(body.text.split('\n')[0]).toBe('Approval needed: notes.write by agent scribe');
      expect(body.text).toContain('Runs: ["echo","wrote:a&lt;b"]');
      expect(body.text).toContain(`https://console.example.com/#/approvals/${id}`);
      expect(body.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: body.text } }]);
      await logUntil(instance, id, (r) => r[0]?.status === 'delivered');
    } finally {
      delete process.env.HARNESS_TEST_SLACK_URL;
    }
  });
});

describe('what the call runs, in a message with include_args', () => {
  it("says the command's display line and the first lines its preview showed, and neither without include_args", async () => {
    const { broker, instance } = await brokerWith(
      `notify:\n  targets:\n  - kind: ntfy\n    name: phone\n    url: ${receiver.url('/with-args')}\n    include_args: true\n  - kind: ntfy\n    name: quiet\n    url: ${receiver.url('/quiet')}\n${webhook('/hook', '\n    include_args: true')}`,
    );
    await call(broker, 'shown.write', 'a "quoted"\nline');
    const got = await receiver.next((r) => r.path === '/with-args');
    expect(got.body.split('\n').slice(0, 6)).toEqual([
      'Approval needed: shown.write by agent scribe',
      'Why: strict tier: every call needs explicit approval',
      'Runs: write "a \\"quoted\\"\\nline"',
      'Preview (shown.peek):',
      '  staged.txt | 1 +',
      '  1 file changed',
    ]);
    const quiet = await receiver.next((r) => r.path === '/quiet');
    expect(quiet.body).not.toContain('Runs:');
    expect(quiet.body).not.toContain('staged.txt');
    const hook = JSON.parse((await receiver.next(at('/hook', 'approval.pending'))).body);
    expect(hook.approval).toMatchObject({
      display: 'write "a \\"quoted\\"\\nline"',
      preview: {
        command: 'shown.peek',
        ok: true,
        text: 'staged.txt | 1 +\n1 file changed',
        truncated: false,
      },
    });
    await logUntil(
      instance,
      hook.approval.id,
      (r) => r.length === 3 && r.every((n) => n.status === 'delivered'),
    );
  });
});

describe('two brokers on one store', () => {
  it('announce each event of an approval to a target once, though both follow it', async () => {
    const { broker, instance } = await brokerWith(`notify:\n  targets:\n${webhook('/hook')}`);
    const second = await start(instance, 'b.sock');
    // The identical call on both brokers finds one pending approval: both are told of it.
    const answers = await Promise.all([
      call(broker, 'notes.write', 'same'),
      call(second, 'notes.write', 'same'),
    ]);
    expect(answers.map((a) => a.reason)).toEqual(['approval_required', 'approval_required']);
    const id = await pendingId(instance);
    await decideApproval(instance, id, 'approved', 'person:ada');
    await receiver.next(at('/hook', 'approval.approved'));
    await logUntil(instance, id, (r) => r.length === 2 && r.every((n) => n.status === 'delivered'));
    // Both followers have seen the decision once the second broker closes (its close waits on them).
    for (const b of brokers.splice(0)) await b.close();
    expect(receiver.received.map(eventOf)).toEqual(['approval.pending', 'approval.approved']);
  });
});
