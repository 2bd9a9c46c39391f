import { describe, expect, it } from 'vitest';
import {
  actionLabel,
  approvalKey,
  createMemoryApprovalStore,
  type Decision,
  decide,
  type Workspace,
} from '../src/index';
import { loadErrors, loadOk } from './helpers';

// One pack per tier, each with a read, a declared write and an undeclared-effects command.
const tiers = `command_packs:
${['open', 'cautious', 'strict', 'readonly']
  .map(
    (t) => `  - id: ${t}
    permission: ${t}
    commands:
      - { id: read, argv: ['true'], effects: read }
      - { id: write, argv: ['true'], effects: write }
      - { id: undeclared, argv: ['true'] }
`,
  )
  .join('')}  - id: db
    permission: readonly
    commands:
      - { id: truncate-table, argv: ['true'], effects: write }
      - { id: send-query, argv: ['true'], effects: read }
  - id: scoped
    permission: open
    scopes: [repo:read]
    commands:
      - { id: run, argv: ['true'], effects: read, scopes: [tests:execute] }
  - id: mixed
    permission: cautious
    permission_overrides: { risky: strict, safe: open }
    commands:
      - { id: risky, argv: ['true'], effects: read }
      - { id: safe, argv: ['true'], effects: write }
      - { id: plain, argv: ['true'], effects: read }
agents:
  - id: all
    scopes: [repo:read, tests:execute]
    grants: [open.read, open.write, open.undeclared, cautious.read, cautious.write, strict.read, strict.write, readonly.read, readonly.write, readonly.undeclared, db.truncate-table, db.send-query, scoped.run, mixed.risky, mixed.safe, mixed.plain]
  - id: narrow
    scopes: [repo:read]
    grants: [pack:scoped, pack:open]
`;

const ws: Workspace = await loadOk(tiers);
const anyone = { scopes: ['repo:read', 'tests:execute'] };
const outcome = (commandId: string, extra: Partial<Parameters<typeof decide>[1]> = {}): Decision =>
  decide(ws, { commandId, caller: anyone, ...extra });

describe('tiers (decision table)', () => {
  it.each([
    ['open.read', 'allow', 'open_tier'],
    ['open.write', 'allow', 'open_tier'],
    ['cautious.read', 'allow', 'read_auto_approved'],
    ['cautious.write', 'approval_required', 'write_needs_approval'],
    ['cautious.undeclared', 'approval_required', 'write_needs_approval'],
    ['strict.read', 'approval_required', 'strict_tier'],
    ['strict.write', 'approval_required', 'strict_tier'],
    ['readonly.read', 'allow', 'read_auto_approved'],
    ['readonly.write', 'deny', 'readonly_tier'],
    ['readonly.undeclared', 'deny', 'readonly_tier'],
  ] as const)('%s → %s (%s) [CP-07, CP-08, CP-09, CP-10, CP-12]', (id, want, code) => {
    const d = outcome(id);
    expect([d.outcome, d.code]).toEqual([want, code]);
  });

  it('permission_overrides win over the pack permission in the gate [CP-05]', () => {
    expect(outcome('mixed.risky').code).toBe('strict_tier');
    expect(outcome('mixed.safe').code).toBe('open_tier');
    expect(outcome('mixed.plain').code).toBe('read_auto_approved');
  });

  it('open skips governance (no approval, even for a write) but the scope gate still applies (decided) [CP-07]', () => {
    expect(outcome('open.write', { approvals: createMemoryApprovalStore() }).approvalId).toBeUndefined();
    const d = decide(ws, { commandId: 'scoped.run', caller: { scopes: ['repo:read'] } });
    expect([d.outcome, d.code, d.scopesDenied]).toEqual(['deny', 'scope_denied', ['tests:execute']]);
  });

  it('readonly + write is denied before governance or approvals are consulted [CP-11]', () => {
    const store = createMemoryApprovalStore();
    const key = approvalKey('readonly.write', 'anonymous', {});
    store.approve(store.request(key, { action: 'x', tier: 'readonly', effects: 'write', reason: 'x' }).id);
    const d = outcome('readonly.write', { approvals: store });
    expect(d.code).toBe('readonly_tier');
    expect(store.approvals[0]?.status).toBe('approved'); // not consumed: the store was never asked
    // and before the scope gate: a caller lacking scopes still gets the readonly reason
    expect(decide(ws, { commandId: 'readonly.write', caller: { scopes: [] } }).code).toBe('readonly_tier');
  });

  it('readonly does not deny a read; the read is auto-approved as under cautious (decided) [CP-12]', () => {
    expect(outcome('readonly.read', { approvals: createMemoryApprovalStore() })).toMatchObject({
      outcome: 'allow',
      code: 'read_auto_approved',
    });
  });

  it('with no governance configured, a call that passes the tier check is allowed; readonly + write is still denied [CP-13]', () => {
    expect(outcome('strict.write', { governance: false })).toMatchObject({
      outcome: 'allow',
      code: 'no_governance',
    });
    expect(outcome('cautious.write', { governance: false }).outcome).toBe('allow');
    expect(outcome('readonly.write', { governance: false })).toMatchObject({
      outcome: 'deny',
      code: 'readonly_tier',
    });
  });

  it('strict needs an explicit approval per call: approving one call does not approve another or a repeat [CP-09]', () => {
    const store = createMemoryApprovalStore();
    const args = { file: 'a.json' };
    const first = outcome('strict.read', { approvals: store, args });
    expect(first).toMatchObject({ outcome: 'approval_required', approvalId: 'apr_1' });
    expect(outcome('strict.read', { approvals: store, args }).approvalId).toBe('apr_1'); // same pending request
    store.approve('apr_1');
    expect(outcome('strict.read', { approvals: store, args: { file: 'b.json' } }).outcome).toBe(
      'approval_required',
    );
    expect(outcome('strict.read', { approvals: store, args: { ...args } })).toMatchObject({
      outcome: 'allow',
      code: 'approved',
      approvalId: 'apr_1',
    });
    expect(outcome('strict.read', { approvals: store, args }).outcome).toBe('approval_required'); // single use
  });

  it('approval keys ignore argument key order and differ by agent and command', () => {
    expect(approvalKey('a.b', 'x', { p: 1, q: 2 })).toEqual(approvalKey('a.b', 'x', { q: 2, p: 1 }));
    expect(approvalKey('a.b', 'x', {}).argsDigest).not.toBe(approvalKey('a.b', 'x', { p: '' }).argsDigest);
    expect(approvalKey('a.b', 'y', {})).not.toEqual(approvalKey('a.b', 'x', {}));
  });

  it('a command of a pack left out for an unmet requirement is refused naming the binary [CP-14]', async () => {
    const w = await loadOk(
      `command_packs:\n  - id: gone\n    optional: true\n    requires: [{ binary: no-such-binary-xyz }]\n    commands:\n      - { id: a, argv: [no-such-binary-xyz], effects: read }\n`,
      { probe: true },
    );
    const d = decide(w, { commandId: 'gone.a', caller: anyone });
    expect([d.outcome, d.code]).toEqual(['deny', 'requirement_unmet']);
    expect(d.reason).toMatchInlineSnapshot(
      `"command:call:gone:a denied: command "gone.a" is not available: pack "gone" was left out because no-such-binary-xyz is not installed (not found on PATH)"`,
    );
  });
});

describe('scopes authorize, actions label', () => {
  it('required scopes (pack + command) are granted or denied; any missing scope denies [CP-16, CP-17]', () => {
    const d = decide(ws, {
      commandId: 'scoped.run',
      caller: { scopes: ['repo:read', 'tests:execute', 'x:y'] },
    });
    expect(d).toMatchObject({ outcome: 'allow', scopesRequired: ['repo:read', 'tests:execute'] });
    expect(d.scopesGranted).toEqual(['repo:read', 'tests:execute']);
    const denied = decide(ws, { commandId: 'scoped.run', caller: { scopes: [] } });
    expect(denied).toMatchObject({
      outcome: 'deny',
      code: 'scope_denied',
      scopesGranted: [],
      scopesDenied: ['repo:read', 'tests:execute'],
    });
  });

  it('a scope that is not noun:verb fails load [CP-16]', async () => {
    expect(
      await loadErrors(`agents:
  - id: a
    scopes: [admin]
`),
    ).toMatchInlineSnapshot(`
  [
    "workspace.yaml:3:14: agents[0].scopes[0]: expected a scope of the form noun:verb, e.g. workspace:read, found "admin"",
  ]
`);
  });

  it('outcomes follow declared effects, never words in the action label [CP-18, CP-62, CP-63]', () => {
    // truncate-table holds no write word of the old heuristic; send-query holds "send".
    expect(outcome('db.truncate-table')).toMatchObject({ outcome: 'deny', code: 'readonly_tier' });
    expect(outcome('db.send-query')).toMatchObject({ outcome: 'allow', code: 'read_auto_approved' });
  });

  it('the decision carries the resolved tier, the effects and the scopes [CP-19]', () => {
    expect(outcome('mixed.risky')).toMatchObject({ tier: 'strict', effects: 'read', scopesRequired: [] });
  });

  it('action labels are command:call:<pack>:<command>; mcp:call stays for servers [CP-20, CP-21]', () => {
    expect(outcome('cautious.read').action).toBe('command:call:cautious:read');
    expect(actionLabel('command', 'json-tools', 'query')).toBe('command:call:json-tools:query');
    expect(actionLabel('mcp', 'filesystem', 'read_file')).toBe('mcp:call:filesystem:read_file');
  });

  it('a denial reason names the action label, the tier and why [CP-22]', () => {
    expect(outcome('readonly.write').reason).toMatchInlineSnapshot(
      `"command:call:readonly:write denied: pack "readonly" is readonly and readonly.write declares effects write"`,
    );
    expect(
      decide(ws, { commandId: 'scoped.run', caller: { scopes: ['repo:read'] } }).reason,
    ).toMatchInlineSnapshot(
      `"command:call:scoped:run denied (tier open, effects read): missing scopes tests:execute; held: repo:read"`,
    );
    expect(outcome('strict.write').reason).toMatchInlineSnapshot(
      `"command:call:strict:write needs approval: strict tier: every call needs explicit approval"`,
    );
  });

  it('every refusal has one shape: outcome, code, reason, action, scopes [CP-15]', () => {
    const shapes = ['readonly.write', 'nope.x', 'scoped.run'].map((id) =>
      Object.keys(decide(ws, { commandId: id, caller: { scopes: [] } }))
        .filter((k) => !['tier', 'effects'].includes(k))
        .sort(),
    );
    expect(new Set(shapes.map((s) => s.join()))).toEqual(
      new Set(['action,code,commandId,outcome,reason,scopesDenied,scopesGranted,scopesRequired']),
    );
  });

  it('an unknown command is denied naming it and listing what exists [CP-28]', () => {
    expect(outcome('cautious.nope').reason).toMatchInlineSnapshot(
      `"command:call:cautious:nope denied: unknown command "cautious.nope": pack "cautious" has the commands cautious.read, cautious.write, cautious.undeclared"`,
    );
    expect(outcome('nope').reason).toMatchInlineSnapshot(
      `"command:call::nope denied: unknown command "nope": expected <pack>.<command>; available: open.read, open.write, open.undeclared, cautious.read, cautious.write, cautious.undeclared, strict.read, strict.write, strict.undeclared, readonly.read, readonly.write, readonly.undeclared, db.truncate-table, db.send-query, scoped.run, mixed.risky, mixed.safe, mixed.plain"`,
    );
  });

  it('a declared agent id is checked against its grants; an unknown agent is denied [CP-65]', () => {
    expect(decide(ws, { commandId: 'cautious.read', caller: 'narrow' })).toMatchObject({
      outcome: 'deny',
      code: 'not_granted',
    });
    expect(decide(ws, { commandId: 'open.read', caller: 'narrow' }).outcome).toBe('allow');
    expect(decide(ws, { commandId: 'open.read', caller: 'ghost' })).toMatchObject({
      outcome: 'deny',
      code: 'unknown_agent',
    });
  });
});
