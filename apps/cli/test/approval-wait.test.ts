// `approval_wait`: a strict call waits at the host for a person's decision instead of answering
// `approval_required` at once. Driven by the real MCP SDK client against a real `harness serve` over
// stdio; the person decides with `harness approvals approve|deny` run as a real process, or in the
// MCP client through elicitation. Every wait ends on an event: a progress notification, an
// elicitation request, the call's answer, or a row in the instance's store.
import { join } from 'node:path';
import { getApproval, initInstance, listApprovals, tailAudit } from '@harness/host';
import { until } from '@harness/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDir, baseEnv, bin, get, runCli, sandbox, structured } from './helpers';

const workspace = join(appDir, 'test', 'fixtures', 'approval-wait', 'workspace.yaml');
const box = sandbox();

beforeAll(async () => {
  await initInstance(box.instance, workspace, { serves: { agent: 'demo' } });
}, 60_000);
afterAll(() => box.cleanup());

type Action = 'accept' | 'decline' | 'cancel';

/**
 * A real SDK client on `harness serve --instance <box>`. With `answers` it declares elicitation and
 * answers each question in turn; `'never'` leaves a question open until serve withdraws it.
 */
async function serve(name: string, answers?: (Action | 'never')[]) {
  const client = new Client(
    { name, version: '0.0.0' },
    answers === undefined ? {} : { capabilities: { elicitation: {} } },
  );
  const asked = events<string>();
  const withdrawn = events<string>();
  if (answers !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const message = String(request.params.message);
      asked.push(message);
      const action = answers.shift() ?? 'cancel';
      if (action === 'accept') return { action, content: { approve: true } };
      if (action !== 'never') return { action };
      return new Promise((resolve) =>
        extra.signal.addEventListener('abort', () => {
          withdrawn.push(message);
          resolve({ action: 'cancel' });
        }),
      );
    });
  }
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'serve', '--instance', box.instance],
      env: baseEnv(box.home),
      stderr: 'pipe',
    }),
  );
  return { client, asked, withdrawn };
}

/** Values that arrive over time, each awaitable by its position. */
function events<T>() {
  const seen: T[] = [];
  const waiters: (() => void)[] = [];
  return {
    seen,
    push(value: T) {
      seen.push(value);
      for (const w of waiters.splice(0)) w();
    },
    /** The `n`th value (1-based), once it has arrived. */
    nth(n = 1): Promise<T> {
      return new Promise((resolve) => {
        const look = (): void => {
          if (seen.length >= n) resolve(seen[n - 1] as T);
          else waiters.push(look);
        };
        look();
      });
    },
  };
}

/** One `run_command` call whose progress notifications are kept, in order. */
function call(client: Client, command: string, line: string, signal?: AbortSignal) {
  const progress = events<Progress>();
  const result = client.callTool({ name: 'run_command', arguments: { command, args: { line } } }, undefined, {
    timeout: 60_000,
    resetTimeoutOnProgress: true,
    onprogress: (p) => progress.push(p),
    ...(signal ? { signal } : {}),
  });
  /** The first notification that names the approval the call waits for, and that approval's id. */
  const waiting = async (): Promise<{ id: string; note: Progress }> => {
    for (let n = 1; ; n++) {
      const note = await progress.nth(n);
      const id = /waits for approval (apr\S+)/.exec(note.message ?? '')?.[1];
      if (id !== undefined) return { id, note };
    }
  };
  return { result, waiting };
}

/** The audit rows of `command` since `after` rows of it, oldest first, starts left out. */
async function rows(command: string, after = 0) {
  return (await tailAudit(box.instance, 500))
    .filter((e) => e.command === command && e.phase !== 'start')
    .slice(after);
}

/** How many process starts of `command` are on record. */
async function starts(command: string): Promise<number> {
  return (await tailAudit(box.instance, 500)).filter((e) => e.command === command && e.phase === 'start')
    .length;
}

describe('a strict call with approval_wait waits for the decision', () => {
  it('sends progress naming the approval and how to approve it; `harness approvals approve` run meanwhile lets it run once, and its result is the output', async () => {
    const { client } = await serve('wait-approve');
    try {
      const before = (await rows('notes.write')).length;
      const held = call(client, 'notes.write', 'first note');
      const { id, note } = await held.waiting();
      expect(note.message).toContain(`notes.write waits for approval ${id} (`);
      expect(note.message).toContain(
        `a person approves it with: harness approvals approve ${id} --instance ${box.instance}`,
      );
      expect(get(note, '_meta', 'harness.dev/progress', 'approval', 'id')).toBe(id);
      expect((await getApproval(box.instance, id))?.status).toBe('pending');

      const approved = await runCli(['approvals', 'approve', id, '--instance', box.instance], {
        home: box.home,
      });
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stdout).toMatch(new RegExp(`^${id} approved: the identical call may run once`));

      const result = await held.result;
      expect(result.isError).toBeFalsy();
      expect(get(structured(result), 'outcome', 'ok')).toBe(true);
      expect(get(structured(result), 'entry', 'value', 'output')).toBe('noted first note');
      const record = await getApproval(box.instance, id);
      expect(record?.status).toBe('consumed');
      const decidedBy = record?.decided_by ?? '';
      expect(decidedBy).toMatch(/^person:/);
      // One answer: the decision and then the run it allowed, with no refusal before them.
      const after = await rows('notes.write', before);
      expect(after.map((r) => [r.phase, r.actor, r.outcome])).toEqual([
        ['approval', decidedBy, 'approved'],
        ['run', 'agent:demo', 'ok'],
      ]);
      expect(after[1]?.payload).toMatchObject({
        approvalId: id,
        approved_by: decidedBy,
        approval_wait: { ended: 'approved' },
      });
    } finally {
      await client.close();
    }
  }, 90_000);

  it('answers as a denied call does when `harness approvals deny` is run while it waits; nothing runs', async () => {
    const { client } = await serve('wait-deny');
    try {
      const before = (await rows('notes.write')).length;
      const held = call(client, 'notes.write', 'denied note');
      const { id } = await held.waiting();
      const denied = await runCli(['approvals', 'deny', id, '--instance', box.instance], { home: box.home });
      expect(denied.code, denied.stderr).toBe(0);
      const result = await held.result;
      expect(result.isError).toBe(true);
      expect(get(structured(result), 'outcome', 'reason')).toBe('approval_denied');
      expect(JSON.stringify(result.content)).toMatch(
        new RegExp(`this exact call was denied by person:[^ ]* \\(approval ${id}\\)`),
      );
      const after = await rows('notes.write', before);
      expect(after.map((r) => [r.phase, r.outcome, r.reason])).toEqual([
        ['approval', 'denied', null],
        ['run', 'refused', 'approval_denied'],
      ]);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('answers approval_required once a 1s wait elapses with no decision, saying the approval stays pending', async () => {
    const { client } = await serve('wait-elapses');
    try {
      const held = call(client, 'brief.write', 'unanswered');
      const { id } = await held.waiting();
      const result = await held.result;
      expect(get(structured(result), 'outcome', 'code')).toBe('approval_required');
      expect(get(structured(result), 'entry', 'value', 'approval', 'id')).toBe(id);
      const text = JSON.stringify(result.content);
      expect(text).toMatch(/no person decided while this call waited 1\.\ds/);
      expect(text).toContain(
        `approval ${id} stays pending: a person must approve it (harness approvals approve ${id} --instance ${box.instance})`,
      );
      expect((await listApprovals(box.instance)).find((a) => a.id === id)?.status).toBe('pending');
    } finally {
      await client.close();
    }
  }, 90_000);

  it('stops waiting when the client cancels the call: nothing runs and the approval stays pending', async () => {
    const { client } = await serve('wait-cancel');
    try {
      const before = (await rows('notes.write')).length;
      const startsBefore = await starts('notes.write');
      const controller = new AbortController();
      const held = call(client, 'notes.write', 'cancelled note', controller.signal);
      const { id } = await held.waiting();
      controller.abort();
      await expect(held.result).rejects.toThrow();
      const row = await until(
        async () => (await rows('notes.write', before)).find((r) => r.phase === 'run'),
        'the run row of the cancelled call',
      );
      expect([row.outcome, row.reason, row.payload.refused_before_run]).toEqual([
        'cancelled',
        'cancelled',
        'cancelled',
      ]);
      expect(row.payload).toMatchObject({ approvalId: id, approval_wait: { ended: 'cancelled' } });
      expect((await getApproval(box.instance, id))?.status).toBe('pending');
      // Nothing started: no process start is on record for it.
      expect(await starts('notes.write')).toBe(startsBefore);
    } finally {
      await client.close();
    }
  }, 90_000);
});

describe('a strict call with approval_wait, in an MCP client with elicitation', () => {
  it('puts the approval to the person while the call waits; accept lets the waiting call run once, with no refusal first', async () => {
    const { client, asked } = await serve('wait-elicit-accept', ['accept']);
    try {
      const before = (await rows('notes.write')).length;
      // No progress asked for by the client: serve learns of the wait all the same.
      const result = await client.callTool(
        { name: 'run_command', arguments: { command: 'notes.write', args: { line: 'accepted note' } } },
        undefined,
        { timeout: 60_000 },
      );
      expect(get(structured(result), 'entry', 'value', 'output')).toBe('noted accepted note');
      expect(asked.seen).toHaveLength(1);
      const id = /approval (apr\S+),/.exec(asked.seen[0] ?? '')?.[1] ?? '';
      expect(asked.seen[0]).toContain('command: notes.write (strict tier)');
      expect(asked.seen[0]).toContain('line: "accepted note"');
      const after = await rows('notes.write', before);
      expect(after.map((r) => [r.phase, r.actor, r.outcome])).toEqual([
        ['approval', 'elicitation:wait-elicit-accept', 'approved'],
        ['run', 'agent:demo', 'ok'],
      ]);
      expect(after[1]?.payload).toMatchObject({
        approvalId: id,
        approved_by: 'elicitation:wait-elicit-accept',
      });
    } finally {
      await client.close();
    }
  }, 90_000);

  it('withdraws the question once a person decided elsewhere and the waiting call ran', async () => {
    const { client, asked, withdrawn } = await serve('wait-elicit-elsewhere', ['decline', 'never']);
    try {
      // The SDK client ignores a cancellation naming request id 0 (it tests the id for truth), so the
      // question withdrawn here is the session's second: the first is declined.
      const first = await client.callTool(
        { name: 'run_command', arguments: { command: 'brief.write', args: { line: 'declined first' } } },
        undefined,
        { timeout: 60_000 },
      );
      expect(get(structured(first), 'outcome', 'reason')).toBe('approval_denied');
      const held = call(client, 'notes.write', 'decided elsewhere');
      const question = await asked.nth(2);
      const id = /approval (apr\S+),/.exec(question)?.[1] ?? '';
      const approved = await runCli(['approvals', 'approve', id, '--instance', box.instance], {
        home: box.home,
      });
      expect(approved.code, approved.stderr).toBe(0);
      const result = await held.result;
      expect(get(structured(result), 'entry', 'value', 'output')).toBe('noted decided elsewhere');
      expect(await withdrawn.nth(1)).toBe(question);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('in a batch, each call that waits is asked about while the batch runs, one question at a time, and each accepted one runs in its place', async () => {
    const { client, asked } = await serve('wait-elicit-batch', ['accept', 'accept']);
    try {
      const before = (await rows('notes.write')).length;
      const result = await client.callTool(
        {
          name: 'run_command',
          arguments: {
            calls: [
              { command: 'notes.write', args: { line: 'batched one' } },
              { command: 'notes.write', args: { line: 'batched two' } },
            ],
          },
        },
        undefined,
        { timeout: 60_000 },
      );
      const results = get(structured(result), 'results') as unknown[];
      expect(results.map((r) => get(r, 'entry', 'value', 'output'))).toEqual([
        'noted batched one',
        'noted batched two',
      ]);
      expect(asked.seen).toHaveLength(2);
      expect(asked.seen.map((m) => /line: "(batched \w+)"/.exec(m)?.[1]).sort()).toEqual([
        'batched one',
        'batched two',
      ]);
      // Each ran once, from its wait: no refusal, no repeated call.
      const after = await rows('notes.write', before);
      expect(after.filter((r) => r.phase === 'run').map((r) => r.outcome)).toEqual(['ok', 'ok']);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('on decline the waiting call answers as denied and nothing runs', async () => {
    const { client, asked } = await serve('wait-elicit-decline', ['decline']);
    try {
      const before = (await rows('notes.write')).length;
      const result = await client.callTool(
        { name: 'run_command', arguments: { command: 'notes.write', args: { line: 'declined note' } } },
        undefined,
        { timeout: 60_000 },
      );
      expect(get(structured(result), 'outcome', 'reason')).toBe('approval_denied');
      expect(asked.seen).toHaveLength(1);
      const after = await rows('notes.write', before);
      expect(after.map((r) => [r.phase, r.outcome, r.reason])).toEqual([
        ['approval', 'denied', null],
        ['run', 'refused', 'approval_denied'],
      ]);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('on cancel the call keeps waiting, and a person approving it with `harness approvals approve` lets it run', async () => {
    const { client, asked } = await serve('wait-elicit-cancel', ['cancel']);
    try {
      const held = call(client, 'notes.write', 'approved later');
      const question = await asked.nth(1);
      const id = /approval (apr\S+),/.exec(question)?.[1] ?? '';
      expect((await getApproval(box.instance, id))?.status).toBe('pending');
      const approved = await runCli(['approvals', 'approve', id, '--instance', box.instance], {
        home: box.home,
      });
      expect(approved.code, approved.stderr).toBe(0);
      const result = await held.result;
      expect(get(structured(result), 'entry', 'value', 'output')).toBe('noted approved later');
      expect(asked.seen).toHaveLength(1);
      expect(await getApproval(box.instance, id)).toMatchObject({
        status: 'consumed',
        decided_by: expect.stringMatching(/^person:/),
      });
    } finally {
      await client.close();
    }
  }, 90_000);
});
