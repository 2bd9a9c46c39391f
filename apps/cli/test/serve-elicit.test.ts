// `harness serve --approvals elicit`, driven by the real MCP SDK client over stdio and over streamable
// HTTP: a client that declares elicitation is asked about each strict call (and answers accept,
// decline or cancel); a client without it, or a serve without the flag, leaves the approval pending
// for the console or `loom approvals`. Decisions go through the host's approval API.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getApproval, initInstance, listApprovals, tailAudit } from '@harness/host';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDir, baseEnv, bin, get, runCli, sandbox, startHttp, structured } from './helpers';

const workspace = join(appDir, 'test', 'fixtures', 'elicit', 'workspace.yaml');
const SECRET = 'vault-secret-7f3a9c';

/** `accept` answers the form with `approve: true`, `accept-no` with `approve: false`, `accept-empty` with nothing. */
type Action = 'accept' | 'accept-no' | 'accept-empty' | 'decline' | 'cancel';

/** The answer a client sends for `action`. */
function answerOf(action: Action) {
  if (action === 'accept') return { action, content: { approve: true } };
  if (action === 'accept-no') return { action: 'accept' as const, content: { approve: false } };
  if (action === 'accept-empty') return { action: 'accept' as const };
  return { action };
}

/** A real SDK client; with `answers`, it declares elicitation and answers each request in turn. */
function newClient(name: string, answers?: Action[]) {
  const asked: string[] = [];
  const client = new Client(
    { name, version: '0.0.0' },
    answers === undefined ? {} : { capabilities: { elicitation: {} } },
  );
  if (answers !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return answerOf(answers.shift() ?? 'cancel');
    });
  }
  return { client, asked };
}

async function connect(client: Client, instance: string, home: string, flags: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'serve', '--instance', instance, ...flags],
    env: baseEnv(home),
    stderr: 'pipe',
  });
  await client.connect(transport);
}

const box = sandbox();

beforeAll(async () => {
  await initInstance(box.instance, workspace, { serves: { agent: 'demo' } });
  const credentials = join(box.instance, 'credentials.json');
  writeFileSync(credentials, JSON.stringify({ vault_token: SECRET }));
  chmodSync(credentials, 0o600);
}, 60_000);
afterAll(() => box.cleanup());

const sign = (client: Client, line: string) =>
  client.callTool({ name: 'run_command', arguments: { command: 'vault.sign', args: { line } } }, undefined, {
    timeout: 50_000,
  });

/** The audit rows of vault.sign, oldest first. */
async function signRows() {
  return (await tailAudit(box.instance, 200)).filter(
    (e) => e.command === 'vault.sign' && e.phase !== 'start',
  );
}

describe('harness serve --approvals elicit', () => {
  it('asks the person through an elicitation-capable client, shows the exact values and argv but no credential, and on accept runs the identical call once, recorded as approved by elicitation', async () => {
    const { client, asked } = newClient('elicit-accepting', ['accept']);
    await connect(client, box.instance, box.home, ['--approvals', 'elicit']);
    try {
      const before = (await signRows()).length;
      // The credential's value as an argument: the host redacts it before the person sees it.
      const res = await sign(client, `ship it ${SECRET}`);
      const value = structured(res);
      expect(value.status).toBe('executed');
      expect(get(value, 'outcome', 'ok')).toBe(true);
      expect(get(value, 'entry', 'value', 'output')).toBe('signed ship it [redacted]');
      expect(asked).toHaveLength(1);
      const message = asked[0] ?? '';
      expect(message).toContain('command: vault.sign (strict tier)');
      expect(message).toContain('line: "ship it [redacted]"');
      expect(message).toContain('"--","ship it [redacted]"]');
      expect(message).not.toContain(SECRET);
      const id = /approval (apr-\S+),/.exec(message)?.[1] ?? '';
      const record = await getApproval(box.instance, id);
      expect(record).toMatchObject({
        status: 'consumed',
        decided_by: 'elicitation:elicit-accepting',
        decided_via: 'elicitation',
      });
      const rows = (await signRows()).slice(before);
      // The person's decision is a row of its own, between the refusal and the run it allowed.
      expect(rows.map((r) => [r.phase, r.actor, r.outcome, r.reason])).toEqual([
        ['run', 'agent:demo', 'refused', 'approval_required'],
        ['approval', 'elicitation:elicit-accepting', 'approved', null],
        ['run', 'agent:demo', 'ok', null],
      ]);
      expect(rows[1]?.payload).toMatchObject({ approvalId: id, via: 'elicitation' });
      expect(rows[2]?.payload).toMatchObject({ approvalId: id, approved_by: 'elicitation:elicit-accepting' });
    } finally {
      await client.close();
    }
  }, 90_000);

  it('on decline denies the approval: the call is refused as denied and nothing runs', async () => {
    const { client, asked } = newClient('elicit-declining', ['decline']);
    await connect(client, box.instance, box.home, ['--approvals', 'elicit']);
    try {
      const before = (await signRows()).length;
      const res = await sign(client, 'declined line');
      expect(res.isError).toBe(true);
      expect(get(structured(res), 'outcome', 'reason')).toBe('approval_denied');
      expect(asked).toHaveLength(1);
      const denied = (await listApprovals(box.instance, { status: 'denied' }))[0];
      expect(denied).toMatchObject({
        decided_by: 'elicitation:elicit-declining',
        args: { line: 'declined line' },
      });
      const rows = (await signRows()).slice(before);
      expect(rows.map((r) => r.outcome)).not.toContain('ok');
    } finally {
      await client.close();
    }
  }, 90_000);

  it('on cancel leaves the approval pending for the console or loom approvals, as without the flag', async () => {
    const { client, asked } = newClient('elicit-cancelling', ['cancel']);
    await connect(client, box.instance, box.home, ['--approvals', 'elicit']);
    try {
      const res = await sign(client, 'cancelled line');
      expect(get(structured(res), 'outcome', 'code')).toBe('approval_required');
      expect(asked).toHaveLength(1);
      const pending = await listApprovals(box.instance);
      expect(pending.find((a) => a.args?.line === 'cancelled line')).toMatchObject({
        status: 'pending',
        decided_by: null,
      });
    } finally {
      await client.close();
    }
  }, 90_000);

  it('asks with one required yes/no field: a client that accepts the form without filling it approves nothing, the approval stays pending', async () => {
    const { client, asked } = newClient('elicit-auto-accepting', ['accept-empty']);
    let form: unknown;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      form = (request.params as { requestedSchema?: unknown }).requestedSchema;
      return answerOf('accept-empty');
    });
    await connect(client, box.instance, box.home, ['--approvals', 'elicit']);
    try {
      const res = await sign(client, 'accepted unfilled');
      expect(form).toMatchObject({ required: ['approve'], properties: { approve: { type: 'boolean' } } });
      expect(get(structured(res), 'outcome', 'code')).toBe('approval_required');
      expect(asked).toHaveLength(1);
      const record = (await listApprovals(box.instance)).find((a) => a.args?.line === 'accepted unfilled');
      expect(record).toMatchObject({ status: 'pending', decided_by: null });
      expect(
        (await signRows()).filter((r) => r.outcome === 'ok' && r.payload?.approvalId === record?.id),
      ).toEqual([]);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('an accepted form that says approve: false denies the call, and nothing runs', async () => {
    const { client, asked } = newClient('elicit-saying-no', ['accept-no']);
    await connect(client, box.instance, box.home, ['--approvals', 'elicit']);
    try {
      const res = await sign(client, 'answered no');
      expect(get(structured(res), 'outcome', 'reason')).toBe('approval_denied');
      expect(asked).toHaveLength(1);
      const denied = await listApprovals(box.instance, { status: 'denied' });
      expect(denied.find((a) => a.args?.line === 'answered no')).toMatchObject({
        decided_by: 'elicitation:elicit-saying-no',
      });
    } finally {
      await client.close();
    }
  }, 90_000);

  it('a client without the elicitation capability is never asked: the approval waits as today', async () => {
    const { client } = newClient('no-elicitation');
    await connect(client, box.instance, box.home, ['--approvals', 'elicit']);
    try {
      const res = await sign(client, 'no capability');
      expect(get(structured(res), 'outcome', 'code')).toBe('approval_required');
      expect((await listApprovals(box.instance)).find((a) => a.args?.line === 'no capability')?.status).toBe(
        'pending',
      );
    } finally {
      await client.close();
    }
  }, 90_000);

  it('without the flag an elicitation-capable client is asked: elicitation is the default, and accept runs the call once', async () => {
    const { client, asked } = newClient('by-default', ['accept']);
    await connect(client, box.instance, box.home, []);
    try {
      const res = await sign(client, 'by default');
      expect(get(structured(res), 'entry', 'value', 'output')).toBe('signed by default');
      expect(asked).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('with --approvals queue an elicitation-capable client is never asked: the approval waits', async () => {
    const { client, asked } = newClient('queue', ['accept']);
    await connect(client, box.instance, box.home, ['--approvals', 'queue']);
    try {
      const res = await sign(client, 'queued');
      expect(get(structured(res), 'outcome', 'code')).toBe('approval_required');
      expect(asked).toEqual([]);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('in a batch, each held call is asked about and the accepted one runs once in its place', async () => {
    const { client, asked } = newClient('elicit-batch', ['accept']);
    await connect(client, box.instance, box.home, ['--approvals', 'elicit']);
    try {
      const res = await client.callTool(
        {
          name: 'run_command',
          arguments: {
            calls: [
              { command: 'echo.argv', args: { value: 'plain read' } },
              { command: 'vault.sign', args: { line: 'batched line' } },
            ],
          },
        },
        undefined,
        { timeout: 50_000 },
      );
      const results = get(structured(res), 'results') as unknown[];
      expect(get(results[0], 'entry', 'value', 'output')).toEqual(['plain read']);
      expect(get(results[1], 'entry', 'value', 'output')).toBe('signed batched line');
      expect(asked).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('over streamable HTTP the question travels with the call, and accept runs it once', async () => {
    const server = await startHttp(
      ['--instance', box.instance, '--approvals', 'elicit', '--http', '127.0.0.1:0'],
      box.home,
    );
    const { client, asked } = newClient('elicit-http', ['accept']);
    try {
      await client.connect(
        new StreamableHTTPClientTransport(server.url, {
          requestInit: { headers: { authorization: `Bearer ${server.token}` } },
        }),
      );
      const res = await sign(client, 'over http');
      expect(get(structured(res), 'entry', 'value', 'output')).toBe('signed over http');
      expect(asked).toHaveLength(1);
    } finally {
      await client.close();
      await server.stop();
    }
  }, 90_000);

  it('refuses an unknown mode, and elicit with a host configuration but no --instance', async () => {
    const bad = await runCli(['serve', '--approvals', 'ask'], { home: box.home });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--approvals must be queue or elicit, found 'ask'");
    const config = join(box.root, 'commands.json');
    writeFileSync(
      config,
      JSON.stringify({
        cliPath: '/usr/bin/true',
        transport: { kind: 'broker', socketPath: join(box.root, 'q.sock') },
      }),
    );
    const noInstance = await runCli(['serve', '--approvals', 'elicit', '--loom-commands-config', config], {
      home: box.home,
    });
    expect(noInstance.code).not.toBe(0);
    expect(noInstance.stderr).toContain(
      '--approvals elicit decides approvals in the host instance directory',
    );
  }, 60_000);
});
