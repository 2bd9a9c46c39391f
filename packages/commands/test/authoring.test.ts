// The Loom authoring tools against the scripted FAKE host CLI (test/fixtures/fake-loom.mjs).
import { createHash } from 'node:crypto';
import { until } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runArtifacts } from '../src/artifacts';
import { toolsForCommentThread } from '../src/comment-thread';
import type { AuthoringConfig } from '../src/config';
import {
  createLoomAuthoringTools as createTools,
  type LoomAuthoringToolsOptions,
} from '../src/loom-authoring-tools';
import { type AuthoringContext, directSessionRunId } from '../src/loom-call';
import type {
  LoomAuthoringContextOutcome,
  LoomComposeOutcome,
  LoomInspectOutcome,
  ToolOutcome,
} from '../src/outcome';
import { createLocalPatternResolver, type PatternHandle } from '../src/pattern';
import { createRun, type RunState } from '../src/run';
import type { HarnessTool } from '../src/tool';
import { checkedTools, outcomeLog } from './helpers/outcomes';
import { row, type Scenario, scenario } from './helpers/scenario';
import { type InputOf, type ToolsByName, withStatus } from './helpers/tools';

// Every result of the tools below is checked against its tool's outcome schema (see the last test).
const createLoomAuthoringTools = (options: LoomAuthoringToolsOptions) => checkedTools(createTools(options));

const session = { apiUrl: 'https://fabric.example', identity: 'id-1', space: 'home' };
const handle = (token: string, extra: Partial<PatternHandle> = {}): PatternHandle => ({
  token,
  kind: 'general',
  apiUrl: session.apiUrl,
  space: 'home',
  scope: 'space',
  path: [],
  target: 'pattern-instance',
  instanceId: 'inst-1',
  ...extra,
});
const receipt = (extra: Record<string, unknown> = {}) => ({
  loom_id: 'loom-1',
  request_id: 'req-1',
  version: 3,
  created: true,
  component_ids: ['c1'],
  operation_ids: ['op1'],
  displaced: ['c0'],
  committed_at: '2025-01-01T00:00:00Z',
  ...extra,
});
/** The kind of each built-in's success (`@harness/protocol`). */
const KINDS: Record<string, string> = {
  'loom.compose': 'composed',
  'loom.inspect': 'inspected',
  'loom.authoring-context': 'context',
};
const ok = (id: string, body: unknown) => ({
  answer: { ok: true, id, code: 'ok', mayHaveLanded: true, completed: [], kind: KINDS[id], body },
});
const fail = (
  id: string,
  code: string,
  body: unknown = { message: 'SQLITE_BUSY at /private/secret/path' },
  mayHaveLanded = false,
) => ({
  answer: { ok: false, id, code, mayHaveLanded, completed: [], body },
});

describe('Loom authoring tools', () => {
  let sc: Scenario;
  let run: RunState;
  let tools: Record<string, HarnessTool>;
  let resolver: ReturnType<typeof createLocalPatternResolver>;
  const make = (config: Partial<AuthoringConfig> = {}) => {
    tools = Object.fromEntries(
      createLoomAuthoringTools({
        config: { ...sc.config, ...config } as AuthoringConfig,
        client: sc.client,
        resolver,
      }).map((t) => [t.name, t]),
    );
  };
  function call(
    name: 'loom_compose',
    input: InputOf<'loom_compose'>,
    extra?: Partial<AuthoringContext>,
  ): Promise<LoomComposeOutcome>;
  function call(
    name: 'loom_inspect',
    input: InputOf<'loom_inspect'>,
    extra?: Partial<AuthoringContext>,
  ): Promise<LoomInspectOutcome>;
  function call(
    name: 'loom_authoring_context',
    input: InputOf<'loom_authoring_context'>,
    extra?: Partial<AuthoringContext>,
  ): Promise<LoomAuthoringContextOutcome>;
  function call(
    name: keyof ToolsByName,
    input: unknown,
    extra?: Partial<AuthoringContext>,
  ): Promise<ToolOutcome> {
    return callRaw(name, input, extra);
  }
  /** A call with any input at all, as a model may send it. */
  function callRaw(
    name: keyof ToolsByName,
    input: unknown,
    extra: Partial<AuthoringContext> = {},
  ): Promise<ToolOutcome> {
    return (tools[name] as HarnessTool).execute(input, { run, slot: 'direct-command', ...extra });
  }
  const script = (behaviour: Record<string, unknown>) =>
    sc.script({
      commands: [row('loom.compose'), row('loom.inspect'), row('loom.authoring-context')],
      behaviour,
    });
  const compose = { request_id: 'req-1', components: [{ ref: 'page:p1', title: 'P' }] };

  beforeEach(async () => {
    sc = await scenario('cli');
    run = createRun({ mode: 'enforce-explicit' });
    resolver = createLocalPatternResolver({
      session,
      handles: [
        handle('tok-ok'),
        handle('tok-restricted', { kind: 'restricted-skill' }),
        handle('tok-sub', { path: ['a'] }),
        handle('tok-foreign', { space: 'other' }),
        handle('tok-scope', { scope: 'cell' }),
        handle('tok-cell', { target: 'cell' }),
      ],
      cells: [
        { instanceId: 'inst-1', target: 'pattern-instance' },
        { instanceId: 'inst-2', target: 'pattern-instance' },
        { instanceId: 'plain', target: 'cell' },
      ],
    });
    script({
      'loom.compose': ok('loom.compose', {
        receipt: receipt(),
        replayed: false,
        current_version: 3,
        displaced: ['c0'],
      }),
    });
    make();
  });
  afterEach(async () => sc.close());

  it('without the configuration the three tools are absent [LA-06]', () => {
    expect(createLoomAuthoringTools({ config: undefined })).toEqual([]);
    expect(Object.keys(tools)).toEqual(['loom_compose', 'loom_inspect', 'loom_authoring_context']);
  });

  it('compose is a write; inspect and authoring context are reads [LA-52, LA-53, LA-54]', () => {
    expect([
      tools.loom_compose?.effect,
      tools.loom_inspect?.effect,
      tools.loom_authoring_context?.effect,
    ]).toEqual(['write', 'read', 'read']);
  });

  it('under an enforcing mode compose needs direct-command authority; nothing reaches the host otherwise [LA-52]', async () => {
    expect(await call('loom_compose', compose, { slot: 'context' })).toMatchObject({
      status: 'refused',
      code: 'not_authorized',
    });
    expect(sc.runs()).toHaveLength(0);
    expect(await call('loom_inspect', { loom_id: 'loom-1' }, { slot: 'context' })).not.toMatchObject({
      code: 'not_authorized',
    });
  });

  it('at enforce-strict the Loom read tools keep their gate for a context-bound task [HC-153]', async () => {
    run = createRun({ mode: 'enforce-strict' });
    expect(await call('loom_inspect', { loom_id: 'loom-1' }, { slot: 'context' })).toMatchObject({
      code: 'not_authorized',
    });
    expect(await call('loom_authoring_context', {}, { slot: 'context' })).toMatchObject({
      code: 'not_authorized',
    });
    expect(sc.runs()).toHaveLength(0);
  });

  it('the model cannot name the executable, queue, instance, actor or run identity [LA-30]', async () => {
    for (const extra of [
      { cliPath: '/bin/sh' },
      { queuePath: '/tmp/q' },
      { instanceDir: '/i' },
      { actor: 'agent:evil' },
      { runId: 'r' },
    ]) {
      expect(await call('loom_compose', { ...compose, ...extra })).toMatchObject({ code: 'invalid_input' });
    }
    expect(sc.runs()).toHaveLength(0);
  });

  it('composition is an authority check only: no flow-aware commit gate on the run’s label [LA-55]', async () => {
    run = createRun({
      mode: 'enforce-explicit',
      ceiling: [],
      initialLabel: { confidentiality: ['secret'], integrity: [] } as never,
    });
    expect((await call('loom_compose', compose)).status).toBe('ok');
  });

  it('compose without loom_id creates: the host gets loom.compose with the arguments on stdin [LA-39, LA-29]', async () => {
    await call('loom_compose', compose);
    const r = sc.runs()[0];
    expect(r?.command).toBe('loom.compose');
    expect(r?.args).toEqual({ request_id: 'req-1', components: [{ ref: 'page:p1', title: 'P' }] });
  });

  it('compose with loom_id extends it, guarded by expected_version [LA-40, LA-41]', async () => {
    await call('loom_compose', { ...compose, loom_id: 'loom-1', expected_version: 2 });
    expect(sc.runs()[0]?.args).toMatchObject({ loom_id: 'loom-1', expected_version: 2 });
  });

  it('expected_version without loom_id is refused (decision) [LA-41]', async () => {
    expect(await call('loom_compose', { ...compose, expected_version: 2 })).toMatchObject({
      status: 'refused',
      code: 'invalid_input',
    });
  });

  it('the configured boundLoomId is never an implicit composition target [LA-24]', async () => {
    make({ boundLoomId: 'loom-bound' });
    await call('loom_compose', compose);
    const r = sc.runs()[0];
    expect(r?.args).not.toHaveProperty('loom_id');
    expect(r?.loomId ?? null).toBeNull();
  });

  it('zero or more than 100 components are refused before the host [LA-35]', async () => {
    expect(await call('loom_compose', { ...compose, components: [] })).toMatchObject({
      code: 'invalid_input',
    });
    const many = Array.from({ length: 101 }, (_, i) => ({ ref: `page:${i}` }));
    expect(await call('loom_compose', { ...compose, components: many })).toMatchObject({
      code: 'invalid_input',
    });
    expect((await call('loom_compose', { ...compose, components: many.slice(0, 100) })).status).toBe('ok');
    expect(sc.runs()).toHaveLength(1);
  });

  it('a component with both or neither of ref and pattern_token is refused [LA-36]', async () => {
    expect(
      await call('loom_compose', { ...compose, components: [{ ref: 'page:a', pattern_token: 'tok-ok' }] }),
    ).toMatchObject({ code: 'invalid_input' });
    expect(await call('loom_compose', { ...compose, components: [{ title: 'x' }] })).toMatchObject({
      code: 'invalid_input',
    });
  });

  it('a ref must use one of the eleven kinds; a model-supplied pattern: address is refused (decision) [LA-37, LA-93, LA-94]', async () => {
    for (const p of [
      'page:',
      'artifact:',
      'url:',
      'person:',
      'thread:',
      'moment:',
      'loom:',
      'wish:',
      'intention:',
      'chat:',
      'run:',
    ]) {
      expect((await call('loom_compose', { ...compose, components: [{ ref: `${p}x` }] })).status).toBe('ok');
    }
    for (const bad of ['pattern:home/inst-1', 'piece:x', 'file:/etc/passwd', 'page']) {
      expect(await call('loom_compose', { ...compose, components: [{ ref: bad }] })).toMatchObject({
        code: 'invalid_input',
      });
    }
  });

  it('a component carries an optional title, stage and focus [LA-38]', async () => {
    await call('loom_compose', {
      ...compose,
      components: [{ ref: 'page:a', title: 'T', stage: 'main', focus: true }],
    });
    expect(sc.runs()[0]?.args).toMatchObject({
      components: [{ ref: 'page:a', title: 'T', stage: 'main', focus: true }],
    });
  });

  it('request_id is required (decision) [LA-96]', async () => {
    expect(await callRaw('loom_compose', { components: compose.components })).toMatchObject({
      code: 'invalid_input',
    });
  });

  it('success is a loom-authored observation with the receipt, replayed, current_version and current displaced [LA-98, LA-99]', async () => {
    const r = await call('loom_compose', compose);
    expect(r).toMatchObject({
      status: 'ok',
      kind: 'loom-authored',
      replayed: false,
      current_version: 3,
      displaced: ['c0'],
    });
    expect(withStatus(r, 'ok').receipt).toEqual(receipt());
  });

  it('a replay returns the original receipt, older version, and no current displacement [LA-100, LA-101, LA-102, LA-103]', async () => {
    script({
      'loom.compose': ok('loom.compose', {
        receipt: receipt({ version: 2 }),
        replayed: true,
        current_version: 5,
        displaced: ['c0'],
      }),
    });
    const r = withStatus(await call('loom_compose', compose), 'ok');
    expect(r).toMatchObject({ replayed: true, current_version: 5, displaced: [] });
    expect(r.receipt.version).toBe(2);
    expect(r.receipt.displaced).toEqual(['c0']);
    expect(r.note).toMatch(/no new work/);
  });

  it('a version conflict keeps its code and asks for inspection and reconsideration [LA-104, LA-105, LA-106]', async () => {
    script({ 'loom.compose': fail('loom.compose', 'version_conflict') });
    const r = withStatus(await call('loom_compose', compose), 'refused');
    expect(r).toMatchObject({ code: 'version_conflict' });
    expect(r.guidance).toMatch(/loom_inspect.*reconsider/);
    expect(r.guidance.length).toBeLessThan(300);
  });

  it('a request conflict guides to recovering the original receipt first [LA-107]', async () => {
    script({ 'loom.compose': fail('loom.compose', 'request_conflict') });
    expect(withStatus(await call('loom_compose', compose), 'refused').guidance).toMatch(
      /Recover its receipt with loom_authoring_context before/,
    );
  });

  it('raw host errors are never relayed [LA-108]', async () => {
    for (const code of ['internal', 'failed', 'version_conflict', 'weird_code']) {
      script({ 'loom.compose': fail('loom.compose', code) });
      const r = await call('loom_compose', compose);
      expect(JSON.stringify(r)).not.toContain('SQLITE');
      expect(JSON.stringify(r)).not.toContain('/private');
      if (code === 'weird_code' || code === 'internal') expect(r).toMatchObject({ code: 'host_error' });
    }
  });

  it('an unreadable or malformed composition response is uncertain: retry the identical request with the same key [LA-109, LA-110]', async () => {
    for (const b of [
      { mode: 'malformed' },
      { mode: 'lost' },
      ok('loom.compose', { receipt: { nope: 1 } }),
      fail('loom.compose', 'internal', null, true),
    ]) {
      script({ 'loom.compose': b });
      const r = withStatus(await call('loom_compose', compose), 'uncertain');
      expect(r.guidance).toMatch(/same request_id/);
    }
  });

  it('cancellation before invocation runs no command [LA-111]', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(await call('loom_compose', compose, { signal: ac.signal })).toMatchObject({
      status: 'cancelled',
      landed: 'no',
    });
    expect(sc.runs()).toHaveLength(0);
  });

  it('a started compose settles when the turn is cancelled and reports the commit, not a rollback [LA-112, LA-113]', async () => {
    script({
      'loom.compose': {
        ...ok('loom.compose', { receipt: receipt(), replayed: false, current_version: 3, displaced: [] }),
        sleepMs: 400,
      },
    });
    const ac = new AbortController();
    const pending = call('loom_compose', compose, { signal: ac.signal });
    await until(() => sc.runs().length === 1, 'the compose to reach the host');
    ac.abort();
    const r = await pending;
    expect(r).toMatchObject({ status: 'ok', kind: 'loom-authored', turnCancelled: true });
    expect(JSON.stringify(r)).not.toMatch(/roll/);
  });

  describe('pattern tokens', () => {
    it('a held general token becomes pattern:<space>/<id> for the host, never shown to the model [LA-57, LA-58, LA-65, LA-66, LA-116]', async () => {
      const r = await call('loom_compose', { ...compose, components: [{ pattern_token: 'tok-ok' }] });
      expect(sc.runs()[0]?.args).toMatchObject({ components: [{ pattern_ref: 'pattern:home/inst-1' }] });
      expect(JSON.stringify(r)).not.toContain('pattern:home');
      expect(runArtifacts(run).at(-1)?.data.canonicalRefs).toEqual(['pattern:home/inst-1']);
      // LA-116: the artifact keeps the run id of the turn that made the call.
      expect(runArtifacts(run).at(-1)?.runId).toBe(run.id);
    });

    it.each([
      ['LA-58', 'tok-unknown', 'pattern_token_unknown'],
      ['LA-59', 'tok-restricted', 'pattern_token_restricted'],
      ['LA-60', 'tok-sub', 'pattern_token_subpath'],
      ['LA-61', 'tok-foreign', 'pattern_token_foreign_space'],
      ['LA-62', 'tok-scope', 'pattern_token_not_space_scope'],
      ['LA-63', 'tok-cell', 'pattern_token_not_instance'],
    ])('%s LA-64: %s is refused (%s) before any host write', async (_id, token, code) => {
      const r = await call('loom_compose', {
        ...compose,
        components: [{ ref: 'page:a' }, { pattern_token: token }],
      });
      expect(r).toMatchObject({ status: 'refused', code });
      expect(sc.runs()).toHaveLength(0);
    });

    it('without a resolver bound to a Fabric session a token is refused before any write [LA-16, LA-64]', async () => {
      tools = Object.fromEntries(
        createLoomAuthoringTools({ config: sc.config, client: sc.client }).map((t) => [t.name, t]),
      );
      expect(
        await call('loom_compose', { ...compose, components: [{ pattern_token: 'tok-ok' }] }),
      ).toMatchObject({ code: 'pattern_resolver_missing' });
      expect(sc.runs()).toHaveLength(0);
    });
  });

  describe('loom_inspect', () => {
    it('version, component metadata and layout only; no refs or renderer internals; piece reads as pattern [LA-42, LA-43, LA-44, LA-67]', async () => {
      script({
        'loom.inspect': ok('loom.inspect', {
          loom_id: 'loom-1',
          version: 4,
          created_at: 'x',
          components: [
            {
              id: 'c1',
              kind: 'piece',
              ref: 'piece:home/x',
              title: 'Old',
              stage: 'main',
              position: 0,
              renderer: { html: '<div>' },
            },
            { id: 'c2', kind: 'page', ref: 'page:p', title: null, stage: null, position: 1 },
          ],
          layout: { stages: { main: ['c1'] }, shelf: ['c2'], focus: 'c1' },
          renderer: { internals: true },
        }),
      });
      const r = await call('loom_inspect', { loom_id: 'loom-1' });
      expect(r).toEqual({
        outputId: expect.any(String),
        status: 'ok',
        loom_id: 'loom-1',
        version: 4,
        components: [
          { id: 'c1', kind: 'pattern', title: 'Old', stage: 'main', position: 0 },
          { id: 'c2', kind: 'page', position: 1 },
        ],
        layout: { stages: { main: ['c1'] }, shelf: ['c2'], focus: 'c1' },
      });
    });
  });

  describe('loom_authoring_context', () => {
    const receipts = Array.from({ length: 40 }, (_, i) => receipt({ request_id: `r${i}` }));

    it('at most 32 historical receipts, marked as history that is not new work or a target [LA-45, LA-46, LA-48, LA-49, LA-56]', async () => {
      script({ 'loom.authoring-context': ok('loom.authoring-context', { receipts, target: null }) });
      const r = withStatus(await call('loom_authoring_context', {}), 'ok');
      expect(r.receipts).toHaveLength(32);
      expect(r.note).toMatch(/not work done in this turn.*never select a write target.*does not attest/);
      expect(r).not.toHaveProperty('kind');
    });

    it('the bound target is sent as the implicit origin; a missing one is reported unavailable beside the receipts [LA-23, LA-47, LA-50]', async () => {
      make({ boundLoomId: 'loom-bound' });
      script({
        'loom.authoring-context': ok('loom.authoring-context', {
          receipts: [receipt()],
          target: null,
          target_unavailable: { loom_id: 'loom-bound', reason: 'not_found' },
        }),
      });
      const r = withStatus(await call('loom_authoring_context', {}), 'ok');
      expect(sc.runs()[0]).toMatchObject({ loomId: 'loom-bound', args: {} });
      expect(r).toMatchObject({ status: 'ok', target: null, target_unavailable: { loom_id: 'loom-bound' } });
      expect(r.receipts).toHaveLength(1);
    });

    it('an explicitly requested missing target is an error [LA-51]', async () => {
      script({ 'loom.authoring-context': fail('loom.authoring-context', 'not_found') });
      const r = await call('loom_authoring_context', { loom_id: 'loom-x' });
      expect(sc.runs()[0]?.args).toEqual({ loom_id: 'loom-x' });
      expect(r).toMatchObject({ status: 'refused', code: 'not_found' });
    });

    it('an interactive turn binds its own loomId, and a turn without one clears the configured target [LA-25, LA-26]', async () => {
      make({ boundLoomId: 'loom-bound' });
      script({ 'loom.authoring-context': ok('loom.authoring-context', { receipts: [], target: null }) });
      await call('loom_authoring_context', {}, { turn: { loomId: 'loom-turn' } });
      await call('loom_authoring_context', {}, { turn: {} });
      const [a, b] = sc.runs();
      expect(a?.loomId).toBe('loom-turn');
      expect(b?.loomId ?? null).toBeNull();
    });

    it('takes no deployment arguments; unknown fields are refused (decision) [LA-76]', async () => {
      expect(await callRaw('loom_authoring_context', { deploy: true })).toMatchObject({
        code: 'invalid_input',
      });
    });

    const deployed = (extra: Record<string, unknown> = {}) => ({
      type: 'loom-deployed-pattern-v1',
      api_url: session.apiUrl,
      space: 'home',
      instance_id: 'inst-1',
      ...extra,
    });
    const withDeployed = (list: unknown[] | undefined) =>
      script({
        'loom.compose': ok('loom.compose', {
          receipt: receipt(),
          replayed: false,
          current_version: 3,
          displaced: [],
        }),
        'loom.authoring-context': ok('loom.authoring-context', {
          receipts: [receipt()],
          target: null,
          ...(list ? { deployed_patterns: { receipts: list } } : {}),
        }),
      });

    it('verified deployed receipts come back as tokens; canonical links stay in the artifact [LA-77, LA-79, LA-80, LA-81, LA-82, LA-85, LA-86]', async () => {
      withDeployed([deployed(), deployed({ instance_id: 'inst-2' })]);
      const r = withStatus(await call('loom_authoring_context', {}), 'ok');
      expect(r.deployed_patterns).toHaveLength(2);
      expect(r.deployed_patterns?.[0]).toEqual({ pattern_token: 'tok-ok' });
      expect(JSON.stringify(r)).not.toContain('pattern:home');
      expect(runArtifacts(run).at(-1)?.data.canonicalRefs).toEqual([
        'pattern:home/inst-1',
        'pattern:home/inst-2',
      ]);
      const again = withStatus(await call('loom_authoring_context', {}), 'ok');
      expect(again.deployed_patterns).toEqual(r.deployed_patterns);
      const minted = r.deployed_patterns?.[1]?.pattern_token ?? '';
      expect(
        (await call('loom_compose', { ...compose, components: [{ pattern_token: minted }] })).status,
      ).toBe('ok');
    });

    it('a restricted skill handle is not expanded into a composition grant [LA-87]', async () => {
      resolver = createLocalPatternResolver({
        session,
        handles: [handle('tok-r', { kind: 'restricted-skill' })],
        cells: [{ instanceId: 'inst-1', target: 'pattern-instance' }],
      });
      make();
      withDeployed([deployed()]);
      const r = withStatus(await call('loom_authoring_context', {}), 'ok');
      expect(r.deployed_patterns?.[0]?.pattern_token).not.toBe('tok-r');
      expect(
        await call('loom_compose', { ...compose, components: [{ pattern_token: 'tok-r' }] }),
      ).toMatchObject({ code: 'pattern_token_restricted' });
    });

    it('at most 32 deployed entries are admitted [LA-78]', async () => {
      withDeployed(Array.from({ length: 40 }, () => deployed()));
      expect(withStatus(await call('loom_authoring_context', {}), 'ok').deployed_patterns).toHaveLength(32);
    });

    it('without Fabric backing there are no pattern tokens, and ordinary context stays available [LA-88]', async () => {
      tools = Object.fromEntries(
        createLoomAuthoringTools({ config: sc.config, client: sc.client }).map((t) => [t.name, t]),
      );
      withDeployed([deployed()]);
      const r = withStatus(await call('loom_authoring_context', {}), 'ok');
      expect(r.receipts).toHaveLength(1);
      expect(r).not.toHaveProperty('deployed_patterns');
    });

    it('an older host without the receipts field gives no tokens and ordinary context [LA-89]', async () => {
      withDeployed(undefined);
      const r = withStatus(await call('loom_authoring_context', {}), 'ok');
      expect(r.receipts).toHaveLength(1);
      expect(r).not.toHaveProperty('deployed_patterns');
    });

    it.each([
      ['LA-90 foreign space', deployed({ space: 'other' })],
      ['LA-79 foreign API', deployed({ api_url: 'https://evil.example' })],
      ['LA-91 malformed', { type: 'loom-deployed-pattern-v1', space: 'home' }],
      ['LA-91 wrong type', deployed({ type: 'other-v2' })],
      ['LA-92 unavailable cell', deployed({ instance_id: 'gone' })],
      ['LA-81 plain cell', deployed({ instance_id: 'plain' })],
    ])('%s gives no token while ordinary context stays available', async (_name, entry) => {
      withDeployed([entry]);
      const r = withStatus(await call('loom_authoring_context', {}), 'ok');
      expect(r.deployed_patterns).toEqual([]);
      expect(r.receipts).toHaveLength(1);
    });
  });

  describe('comment threads', () => {
    const all = [
      { name: 'loom_compose', effect: 'write' as const },
      { name: 'loom_inspect', effect: 'read' as const },
      { name: 'loom_authoring_context', effect: 'read' as const },
      { name: 'shell', effect: 'write' as const },
      { name: 'write_file', effect: 'write' as const },
      { name: 'delegate', effect: 'write' as const },
    ];
    const policy = ['loom_compose', 'loom_inspect', 'shell', 'write_file', 'delegate'];

    it('without allowCommentThreads a comment thread keeps its read-only policy [LA-68]', () => {
      expect(toolsForCommentThread(all, { sessionPolicy: policy }).map((t) => t.name)).toEqual([
        'loom_inspect',
      ]);
    });

    it('with it, only the Loom tools the session policy names survive; shell, files, delegation do not [LA-69, LA-70, LA-71, LA-72, LA-73]', () => {
      expect(
        toolsForCommentThread(all, { sessionPolicy: policy, allowCommentThreads: true }).map((t) => t.name),
      ).toEqual(['loom_compose', 'loom_inspect']);
    });

    it('the grant does not create direct-command authority [LA-74]', async () => {
      make({ allowCommentThreads: true });
      expect(await call('loom_compose', compose, { slot: 'context' })).toMatchObject({
        code: 'not_authorized',
      });
    });
  });

  it('a direct interactive call derives its receipt namespace from the run identity and session id with SHA-256 [LA-114, LA-115]', () => {
    const a = directSessionRunId('weaver-console', 'session-1');
    const digest = createHash('sha256').update('weaver-console\nsession-1').digest('hex').slice(0, 32);
    expect(a).toBe(`weaver-console.${digest}`);
    expect(directSessionRunId('weaver-console', 'session-1')).toBe(a);
    expect(directSessionRunId('weaver-console', 'session-2')).not.toBe(a);
    expect(directSessionRunId('r'.repeat(128), 's').length).toBeLessThanOrEqual(128);
  });
});

describe('the typed outcome (ToolOutcome)', () => {
  it('every result the tests above produced parses with its tool’s outcome schema and with ToolOutcome', () => {
    // checkedTools asserted each result as it came back; this says the assertions ran, and over what.
    expect(outcomeLog.checked).toBeGreaterThan(50);
    expect([...outcomeLog.statuses]).toEqual(
      expect.arrayContaining(['ok', 'refused', 'failed', 'uncertain', 'cancelled']),
    );
  });
});
