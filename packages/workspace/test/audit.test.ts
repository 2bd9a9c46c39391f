import { credentialsFrom, runPackCommand } from '@harness/packs';
import { describe, expect, it } from 'vitest';
import { auditEvent, decide } from '../src/index';
import { loadOk } from './helpers';

const SECRET = 'ghp_s3cr3t-value-0123456789';

const text = `command_packs:
  - id: gh
    permission: cautious
    credentials_ref: gh_token
    env: { GH_TOKEN: '{{credential.gh_token}}' }
    commands:
      - id: whoami
        argv: [node, -e, 'console.log("token=" + process.env.GH_TOKEN); console.error(process.env.GH_TOKEN); process.exit(3)']
        effects: read
`;

describe('audit events', () => {
  it('the event action is the label; the payload carries provider, container, member and effects as fields [CP-23, CP-24]', async () => {
    const ws = await loadOk(text);
    const decision = decide(ws, { commandId: 'gh.whoami', caller: { id: 'reader', scopes: [] } });
    expect(auditEvent(ws, 'gh.whoami', { agent: 'reader', decision })).toEqual({
      action: 'command:call:gh:whoami',
      payload: {
        provider: 'command',
        container: 'gh',
        member: 'whoami',
        effects: 'read',
        tier: 'cautious',
        agent: 'reader',
        decision: 'allow',
        code: 'read_auto_approved',
        reason: 'command:call:gh:whoami allowed: tier cautious, effects read, reads are auto-approved',
        scopesRequired: [],
        scopesDenied: [],
      },
    });
  });

  it('denied calls are audited too [CP-23]', async () => {
    const ws = await loadOk(text.replace('effects: read', 'effects: write').replace('cautious', 'readonly'));
    const decision = decide(ws, { commandId: 'gh.whoami', caller: { scopes: [] } });
    expect(auditEvent(ws, 'gh.whoami', { decision })?.payload).toMatchObject({
      decision: 'deny',
      code: 'readonly_tier',
    });
  });

  it('a query reads payload fields; the fields agree with the label without parsing it [CP-26]', async () => {
    const ws = await loadOk(text);
    const e = auditEvent(ws, 'gh.whoami');
    expect(e && `command:call:${e.payload.container}:${e.payload.member}`).toBe(e?.action);
  });

  it('a credential value never appears in the audit event of a run that printed it [CP-40]', async () => {
    const ws = await loadOk(text);
    const credentials = credentialsFrom({ gh_token: SECRET });
    const r = await runPackCommand(ws, 'gh.whoami', {}, { credentials });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.outcome.stdout).toBe('token=[redacted]\n');
    const event = auditEvent(ws, 'gh.whoami', { outcome: r.outcome, credentials });
    expect(event?.payload.run).toMatchObject({ status: 'exit_nonzero', exitCode: 3 });
    expect(JSON.stringify(event)).not.toContain(SECRET);
    expect(JSON.stringify(r)).not.toContain(SECRET);
  });

  it('returns undefined for an unknown command', async () => {
    expect(auditEvent(await loadOk(text), 'gh.nope')).toBeUndefined();
  });
});

describe('pack commands beside MCP servers', () => {
  it('a pack command audits as provider "command" whatever servers the workspace declares [CP-24, CP-25]', async () => {
    const ws = await loadOk(
      `${text}mcp_servers:\n  - { id: docs, transport: { url: "https://x.example/mcp" } }\n`,
    );
    expect(auditEvent(ws, 'gh.whoami')?.payload.provider).toBe('command');
    expect(auditEvent(ws, 'docs.search')?.payload).toMatchObject({
      provider: 'mcp',
      container: 'docs',
      member: 'search',
    });
  });
});
