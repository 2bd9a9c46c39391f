// The host command tools against a scripted FAKE host, once per client: the CLI client runs
// test/fixtures/fake-loom.mjs, the socket client talks to test/helpers/fake-broker.ts. Both read
// the same script, so every behaviour below must be identical through either path.
import { renderSignature } from '@harness/signature';
import { until } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHostCommandTools as createTools,
  type HostCommandToolsOptions,
} from '../src/host-command-tools';
import { LIMITS } from '../src/limits';
import type { ListCommandsOutcome, RunCommandOutcome, ToolOutcome } from '../src/outcome';
import { createRun, type RunState } from '../src/run';
import type { HarnessTool, ToolContext } from '../src/tool';
import { checkedTools, outcomeLog } from './helpers/outcomes';
import { row, type Scenario, scenario } from './helpers/scenario';
import { admitted, answered, type InputOf, type ToolsByName, toolOf, withStatus } from './helpers/tools';

// Every result of the tools below is checked against its tool's outcome schema (see the last test).
const createHostCommandTools = (options: HostCommandToolsOptions) => checkedTools(createTools(options));

const SECRET = { confidentiality: ['secret'], integrity: [] };

describe.each(['cli', 'socket'] as const)('host command tools over the %s client', (kind) => {
  let sc: Scenario;
  let tools: Record<string, HarnessTool>;
  let run: RunState;
  const ctx = (extra: Partial<ToolContext> = {}): ToolContext => ({ run, slot: 'direct-command', ...extra });
  function call(
    name: 'list_commands',
    input: InputOf<'list_commands'>,
    extra?: Partial<ToolContext>,
  ): Promise<ListCommandsOutcome>;
  function call(
    name: 'run_command' | 'run_read_command',
    input: InputOf<'run_command'>,
    extra?: Partial<ToolContext>,
  ): Promise<RunCommandOutcome>;
  function call(name: keyof ToolsByName, input: unknown, extra?: Partial<ToolContext>): Promise<ToolOutcome> {
    return callRaw(name, input, extra);
  }
  /** A call with any input at all, as a model may send it. */
  function callRaw(
    name: keyof ToolsByName,
    input: unknown,
    extra: Partial<ToolContext> = {},
  ): Promise<ToolOutcome> {
    return (tools[name] as HarnessTool).execute(input, ctx(extra));
  }
  /** A lone run_command call the test expects the host to have answered. */
  const executed = async (input: InputOf<'run_command'>) =>
    withStatus(await call('run_command', input), 'executed');
  const commands = [
    row('files.read', {
      effect: 'read',
      readOnlyGranted: true,
      inputs: { type: 'object', properties: { path: { type: 'string', 'x-note': 'n' } }, required: ['path'] },
    }),
    row('files.write', { effect: 'write' }),
    row('notes.search', { effect: 'read' }),
    row('weird.stamp', { effect: 'read', readOnlyGranted: 'true' }),
    row('people.only', { actors: ['person:ann'] }),
    row('board.post', {
      scope: 'loom',
      inputs: { type: 'object', properties: { loomId: { type: 'string', 'x-source': 'loom' } } },
    }),
  ];

  beforeEach(async () => {
    sc = await scenario(kind, { jobIdEnvVar: 'LOOM_COMMAND_JOB_ID' });
    sc.script({ commands, jobIdEnvVar: 'LOOM_COMMAND_JOB_ID' });
    tools = Object.fromEntries(
      createHostCommandTools({ config: sc.config, client: sc.client }).map((t) => [t.name, t]),
    );
    run = createRun({ mode: 'enforce-explicit' });
  });
  afterEach(async () => {
    await sc.close();
  });

  describe('list_commands', () => {
    it('reads the host listing and returns outputId, status, notice, entries and hidden [HC-24, HC-29, HC-40, HC-41]', async () => {
      const r = withStatus(await call('list_commands', {}), 'ok');
      expect(sc.lists()).toHaveLength(1);
      expect(typeof r.outputId).toBe('string');
      expect(r.hidden).toBe(1);
      expect(r.omitted).toBe(0);
      expect(r.compacted).toBe(0);
      const e = r.entries.find((x) => x.name === 'files.write');
      expect(e).toEqual({
        name: 'files.write',
        signature: expect.any(String),
        title: 'Title of files.write',
        description: 'Help of files.write',
      });
    });

    it('the notice says an undeclared effect may change the person’s data [HC-58, HC-59]', async () => {
      const r = withStatus(await call('list_commands', {}), 'ok');
      expect(r.notice).toMatch(/assume a command whose effect is not shown may change the person's data/);
    });

    it('the notice explains the bracket that ends each signature, once', async () => {
      const r = withStatus(await call('list_commands', {}), 'ok');
      expect(r.notice).toContain(
        'The bracket reads [effect, target]: [read, global] is a read (it changes nothing) that acts on no particular loom',
      );
      expect(r.entries.every((e) => !(e.description ?? '').includes('[effect, target]'))).toBe(true);
    });

    it('readOnlyGranted appears only for the broker’s literal true stamp [HC-42, HC-60, HC-145]', async () => {
      const r = withStatus(await call('list_commands', {}), 'ok');
      const by = (n: string) => r.entries.find((x) => x.name === n);
      expect(by('files.read')?.readOnlyGranted).toBe(true);
      expect(by('notes.search')).not.toHaveProperty('readOnlyGranted');
      expect(by('weird.stamp')).not.toHaveProperty('readOnlyGranted');
    });

    it('each entry carries the one-line signature @harness/signature renders for its row [HC-61, HC-66, HC-76, HC-78]', async () => {
      const r = withStatus(await call('list_commands', {}), 'ok');
      const e = r.entries.find((x) => x.name === 'board.post');
      expect(e?.signature).toBe(
        renderSignature({ name: 'board.post', inputSchema: commands[5]?.inputs, scope: 'loom' }),
      );
      expect(e?.signature).not.toContain('\n');
    });

    it('a command named in detail carries its inputSchema without x-* keywords [HC-43, HC-44]', async () => {
      const r = withStatus(await call('list_commands', { detail: ['files.read'] }), 'ok');
      const e = r.entries.find((x) => x.name === 'files.read');
      expect(e?.inputSchema).toEqual({
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      });
      expect(r.entries.find((x) => x.name === 'files.write')).not.toHaveProperty('inputSchema');
    });

    it('a description of several paragraphs lists its first, marked " …"; detail shows it whole', async () => {
      const help = 'Show the working tree status.\nOne line per entry: "1 <XY> <path>" for a changed file.';
      sc.script({
        commands: [row('git.status', { effect: 'read', help }), row('git.log', { effect: 'read' })],
      });
      const plain = withStatus(await call('list_commands', {}), 'ok');
      expect(plain.entries[0]?.description).toBe('Show the working tree status. …');
      expect(plain.entries[1]?.description).toBe('Help of git.log');
      expect(plain.notice).toContain(
        'A description ending in " …" continues in list_commands({ detail: [name] }).',
      );
      const detailed = withStatus(await call('list_commands', { detail: ['git.status'] }), 'ok');
      expect(detailed.entries[0]?.description).toBe(help);
    });
    it('inputSchema is true where the host schema is not an object or is past 16 KiB [HC-45, HC-46]', async () => {
      sc.script({
        commands: [
          row('a.list', { inputs: ['not', 'an', 'object'] }),
          row('a.big', { inputs: { type: 'object', description: 'x'.repeat(17 * 1024) } }),
        ],
      });
      const r = withStatus(await call('list_commands', { detail: ['a.list', 'a.big'] }), 'ok');
      expect(r.entries.map((e) => e.inputSchema)).toEqual([true, true]);
    });

    it('a detail of more than sixteen names is refused with nothing read [HC-39]', async () => {
      const r = await call('list_commands', { detail: Array.from({ length: 17 }, (_, i) => `c${i}`) });
      expect(r).toMatchObject({ status: 'failed_to_deliver', landed: 'no', code: 'invalid_input' });
      expect(sc.lists()).toHaveLength(0);
    });

    it('an explicit list_commands reads afresh every time and the run holds what it read [HC-36]', async () => {
      await call('list_commands', {});
      sc.script({ commands: [row('only.one')] });
      const r = withStatus(await call('list_commands', {}), 'ok');
      expect(sc.lists()).toHaveLength(2);
      expect(r.entries.map((e) => e.name)).toEqual(['only.one']);
      expect(run.catalog?.rows.map((x) => x.name)).toEqual(['only.one']);
    });

    it('an unreadable listing is failed_to_deliver, landed no, malformed_payload or command_failed [HC-111]', async () => {
      sc.script({ commands, list: { mode: 'malformed' } });
      expect(await call('list_commands', {})).toMatchObject({
        status: 'failed_to_deliver',
        landed: 'no',
        code: 'malformed_payload',
      });
      sc.script({ commands, list: { mode: 'fail' } });
      expect(await call('list_commands', {})).toMatchObject({
        status: 'failed_to_deliver',
        landed: 'no',
        code: 'command_failed',
      });
    });
  });

  describe('the run catalog', () => {
    it('the first run_command lists, later ones use the held catalog [HC-30, HC-34, HC-35]', async () => {
      for (let i = 0; i < 3; i++)
        expect((await call('run_command', { command: 'files.write' })).status).toBe('executed');
      expect(sc.lists()).toHaveLength(1);
      expect(sc.runs()).toHaveLength(3);
    });

    it('a run_command after list_commands uses the catalog list_commands read [HC-30]', async () => {
      await call('list_commands', {});
      await call('run_command', { command: 'files.write' });
      expect(sc.lists()).toHaveLength(1);
    });

    it('every run_read_command reads the listing afresh and holds it [HC-31, HC-37, HC-143]', async () => {
      await call('run_read_command', { command: 'files.read', args: { path: 'a' } });
      await call('run_read_command', { command: 'files.read', args: { path: 'a' } });
      expect(sc.lists()).toHaveLength(2);
      sc.script({ commands: [row('x.y', { effect: 'read', readOnlyGranted: true })] });
      await call('run_read_command', { command: 'x.y' });
      expect(run.catalog?.rows.map((r) => r.name)).toEqual(['x.y']);
    });

    it('a failed listing read is not held; the next call asks the host again [HC-38]', async () => {
      sc.script({ commands, list: { mode: 'fail' } });
      expect(await call('run_command', { command: 'files.write' })).toMatchObject({ code: 'command_failed' });
      expect(run.catalog).toBeUndefined();
      sc.script({ commands });
      expect((await call('run_command', { command: 'files.write' })).status).toBe('executed');
      expect(sc.lists()).toHaveLength(2);
    });

    it('a failed fresh read keeps the catalog held from an earlier good read (decision) [HC-38]', async () => {
      await call('list_commands', {});
      sc.script({ commands, list: { mode: 'fail' } });
      expect(await call('list_commands', {})).toMatchObject({ code: 'command_failed' });
      expect(run.catalog?.rows.length).toBe(5);
      expect((await call('run_command', { command: 'files.write' })).status).toBe('executed');
    });
  });

  describe('run_command: one call', () => {
    it('runs one call with its args and returns executed with the outcome summary [HC-25, HC-83, HC-95, HC-96]', async () => {
      const r = withStatus(await call('run_command', { command: 'files.write', args: { a: 1 } }), 'executed');
      expect(r).toMatchObject({ command: 'files.write', truncated: false });
      expect(r.outcome).toEqual({
        ok: true,
        id: 'files.write',
        code: 'ok',
        mayHaveLanded: true,
        completed: [],
        bodyBytes: expect.any(Number),
      });
      expect(r.entry).toMatchObject({ status: 'admitted', value: { echo: { a: 1 } } });
      expect(sc.runs()[0]).toMatchObject({ command: 'files.write', args: { a: 1 } });
    });

    it('loomId is passed only when the call names it, never inferred from the target [HC-26, HC-81, HC-82]', async () => {
      await call('run_command', { command: 'board.post' });
      await call('run_command', { command: 'board.post', loomId: 'loom-1' });
      const [a, b] = sc.runs();
      expect(a?.loomId ?? null).toBeNull();
      expect(b?.loomId).toBe('loom-1');
    });

    it('expectedVersion is passed only when given [HC-27]', async () => {
      await call('run_command', { command: 'files.write' });
      await call('run_command', { command: 'files.write', expectedVersion: 3 });
      const [a, b] = sc.runs();
      expect(a?.expectedVersion ?? null).toBeNull();
      expect(b?.expectedVersion).toBe(3);
    });

    it('run_command sends no read-only demand [HC-161]', async () => {
      await call('run_command', { command: 'files.read', args: { path: 'a' } });
      expect(sc.runs()[0]?.readOnly).toBe(false);
    });

    it('the job id comes from the embedder for discovery and execution, never from the model [HC-15, HC-17, HC-18, HC-22]', async () => {
      await call(
        'run_command',
        { command: 'files.write', args: { jobId: 'from-model' } },
        { jobId: 'job-7' },
      );
      expect(sc.lists()[0]?.jobId).toBe('job-7');
      expect(sc.runs()[0]?.jobId).toBe('job-7');
    });

    it('without a supplied id the request is still sent, with no job id [HC-19]', async () => {
      expect((await call('run_command', { command: 'files.write' })).status).toBe('executed');
      expect(sc.runs()[0]?.jobId ?? null).toBeNull();
    });

    it('a command the catalog does not show (hidden included) is unknown_command and starts nothing [HC-89, HC-103, HC-33]', async () => {
      const r = await call('run_command', { command: 'people.only' });
      expect(r).toMatchObject({ status: 'unknown_command', command: 'people.only' });
      expect(sc.runs()).toHaveLength(0);
    });

    it('unknown_command suggests up to three names, containing ones first, and points to list_commands [HC-104, HC-105, HC-106]', async () => {
      const r = withStatus(await call('run_command', { command: 'files' }), 'unknown_command');
      expect(r.suggestions).toEqual(['files.read', 'files.write', expect.any(String)]);
      expect(r.suggestions).toHaveLength(3);
      expect(r.hint).toMatch(/list_commands/);
      const typo = withStatus(await call('run_command', { command: 'files.wrte' }), 'unknown_command');
      expect(typo.suggestions?.[0]).toBe('files.write');
    });

    it('args go to the host unchecked; a bad-args answer carries the signature list_commands shows [HC-90, HC-102]', async () => {
      sc.script({
        commands,
        behaviour: {
          'files.read': {
            answer: {
              ok: false,
              id: 'files.read',
              code: 'bad-args',
              mayHaveLanded: false,
              completed: [],
              body: { errors: [{ path: '/path', message: 'required' }] },
            },
          },
        },
      });
      const listed = withStatus(await call('list_commands', {}), 'ok');
      const r = withStatus(
        await call('run_command', { command: 'files.read', args: { nope: true } }),
        'executed',
      );
      expect(sc.runs()[0]?.args).toEqual({ nope: true });
      expect(answered(r.outcome).code).toBe('bad-args');
      expect(r.signature).toBe(listed.entries.find((e) => e.name === 'files.read')?.signature);
    });

    it('forbidden and refused read as not_granted with hostCode and a hint [HC-99, HC-100, HC-101]', async () => {
      const refusedWith = (reason: string) => ({
        commands,
        behaviour: {
          'files.write': {
            answer: {
              ok: false,
              id: 'files.write',
              code: 'refused' as const,
              reason,
              mayHaveLanded: false,
              completed: [],
              body: { message: 'pack "files" is readonly' },
            },
          },
        },
      });
      sc.script(refusedWith('readonly_tier'));
      const refused = withStatus(await call('run_command', { command: 'files.write' }), 'executed');
      expect(refused.outcome).toMatchObject({
        code: 'not_granted',
        hostCode: 'refused',
        reason: 'readonly_tier',
      });
      expect(refused.hint).toMatch(/Do not retry it: .* offer it to them\.$/);
      sc.script({ commands: commands.filter((c) => c.id !== 'files.write') });
      const forbidden = withStatus(await call('run_command', { command: 'files.write' }), 'executed');
      expect(forbidden.outcome).toMatchObject({ code: 'not_granted', hostCode: 'forbidden' });
    });

    it('a call waiting for a person reads approval_required, with no hint contradicting the host', async () => {
      sc.script({
        commands,
        behaviour: {
          'files.write': {
            answer: {
              ok: false,
              id: 'files.write',
              code: 'refused',
              reason: 'approval_required',
              mayHaveLanded: false,
              completed: [],
              body: {
                message: 'needs approval; a person must approve it, then the identical call runs once',
              },
            },
          },
        },
      });
      const held = withStatus(await call('run_command', { command: 'files.write' }), 'executed');
      expect(held.outcome).toMatchObject({ code: 'approval_required', hostCode: 'refused' });
      expect(held.hint).toBeUndefined();
      expect(JSON.stringify(held)).not.toMatch(/Do not retry/);
    });

    it.each([
      ['approval_denied', 'files.write: this exact call was denied by person:ann (approval apr-1)'],
      [
        'approval_expired',
        'files.write: approval apr-1 expired at 2026-12-02T10:15:00.000Z with no decision',
      ],
    ])(
      'a call whose approval was decided against it (%s) reads not_granted with that reason and the host’s words, no hint besides',
      async (reason, message) => {
        sc.script({
          commands,
          behaviour: {
            'files.write': {
              answer: {
                ok: false,
                id: 'files.write',
                code: 'refused',
                reason,
                mayHaveLanded: false,
                completed: [],
                body: { message },
              },
            },
          },
        });
        const refused = withStatus(await call('run_command', { command: 'files.write' }), 'executed');
        expect(refused.outcome).toMatchObject({ code: 'not_granted', hostCode: 'refused', reason });
        expect(refused.hint).toBeUndefined();
        expect(JSON.stringify(refused)).toContain(message);
      },
    );

    it('a value the host refused to render reads render_refused, with a hint to change the value', async () => {
      sc.script({
        commands,
        behaviour: {
          'files.write': {
            answer: {
              ok: false,
              id: 'files.write',
              code: 'refused',
              reason: 'render_refused',
              mayHaveLanded: false,
              completed: [],
              body: { message: 'the value of "path" starts with "-"' },
            },
          },
        },
      });
      const r = withStatus(await call('run_command', { command: 'files.write' }), 'executed');
      expect(r.outcome).toMatchObject({ code: 'render_refused', hostCode: 'refused' });
      expect(r.hint).toBe(
        'The host refused an argument value before running anything (see the message). Change that value and call again.',
      );
    });

    it('a command withdrawn after the catalog was read is still sent, and the broker refuses it [HC-91]', async () => {
      await call('list_commands', {});
      sc.script({ commands: commands.filter((c) => c.id !== 'files.write') });
      const r = withStatus(await call('run_command', { command: 'files.write' }), 'executed');
      expect(sc.runs()).toHaveLength(1);
      expect(r.outcome).toMatchObject({ ok: false, code: 'not_granted', hostCode: 'forbidden' });
    });

    it('outcome texts are cut to an identifier and completed to 32 ids [HC-97, HC-98]', async () => {
      const completed = Array.from({ length: 40 }, (_, i) => `op-${i}`);
      sc.script({
        commands,
        behaviour: {
          'files.write': {
            answer: {
              ok: true,
              id: 'files.write',
              code: `ok${'x'.repeat(500)}`,
              mayHaveLanded: true,
              completed,
              body: 1,
            },
          },
        },
      });
      const r = withStatus(await call('run_command', { command: 'files.write' }), 'executed');
      expect(answered(r.outcome).completed).toEqual(completed.slice(0, 32));
      expect(answered(r.outcome).code.length).toBeLessThanOrEqual(LIMITS.maxIdentifier);
    });

    it('a malformed call is failed_to_deliver, landed no, invalid_input; routing fields are not the model’s [HC-108, LA-30]', async () => {
      for (const bad of [
        { command: 'files.write', cliPath: '/bin/sh' },
        { command: 'files.write', queuePath: '/tmp/q' },
        { command: 'files.write', jobId: 'j' },
        { command: 7 },
        { command: 'files.write', args: [1] },
        { command: 'files.write', extra: 1 },
        { command: 'files.write', expectedVersion: -1 },
      ]) {
        expect(await callRaw('run_command', bad)).toMatchObject({
          status: 'failed_to_deliver',
          landed: 'no',
          code: 'invalid_input',
        });
      }
      expect(sc.runs()).toHaveLength(0);
    });

    it('args over 16 KiB of JSON are refused before sending [HC-88]', async () => {
      const r = await call('run_command', { command: 'files.write', args: { s: 'x'.repeat(16 * 1024) } });
      expect(r).toMatchObject({ status: 'failed_to_deliver', landed: 'no', code: 'invalid_input' });
      expect(sc.runs()).toHaveLength(0);
      const ok = await call('run_command', {
        command: 'files.write',
        args: { s: 'x'.repeat(16 * 1024 - 10) },
      });
      expect(ok.status).toBe('executed');
    });

    it('a call cancelled before sending is failed_to_deliver, cancelled, with nothing sent [HC-110]', async () => {
      const ac = new AbortController();
      ac.abort();
      const r = await call('run_command', { command: 'files.write' }, { signal: ac.signal });
      expect(r).toMatchObject({ status: 'failed_to_deliver', landed: 'no', code: 'cancelled' });
      expect(sc.runs()).toHaveLength(0);
    });

    it('an answer lost after sending is failed_to_deliver, landed unknown [HC-115]', async () => {
      sc.script({
        commands,
        behaviour: {
          'files.write': { mode: 'lost' },
          'files.read': { mode: 'malformed' },
          'notes.search': { mode: 'crash' },
        },
      });
      expect(await call('run_command', { command: 'files.write' })).toMatchObject({
        status: 'failed_to_deliver',
        landed: 'unknown',
      });
      expect(await call('run_command', { command: 'files.read' })).toMatchObject({
        status: 'failed_to_deliver',
        landed: 'unknown',
      });
      expect(await call('run_command', { command: 'notes.search' })).toMatchObject({
        status: 'failed_to_deliver',
        landed: 'unknown',
      });
    });

    it('a host that refuses the request itself (usage) is landed no [HC-111]', async () => {
      sc.script({ commands, behaviour: { 'files.write': { mode: 'usage' } } });
      expect(await call('run_command', { command: 'files.write' })).toMatchObject({
        status: 'failed_to_deliver',
        landed: 'no',
        code: 'invalid_input',
      });
    });

    it('an answer that alone passes the output bound is left out and the result marked truncated [HC-172]', async () => {
      const body = Array.from({ length: 9000 }, (_, i) => `item-${i}`);
      sc.script({
        commands,
        behaviour: {
          'files.write': {
            answer: { ok: true, id: 'files.write', code: 'ok', mayHaveLanded: true, completed: [], body },
          },
        },
      });
      const r = withStatus(await call('run_command', { command: 'files.write' }), 'executed');
      expect(r.truncated).toBe(true);
      expect(r.entry).not.toHaveProperty('value');
      expect(r.entry.status).toBe('admitted');
    });
  });

  describe('run_command: batches', () => {
    it('a batch returns one result per call in order, each with its own outputId [HC-84, HC-116, HC-117, HC-119]', async () => {
      const r = withStatus(
        await call('run_command', {
          calls: [
            { command: 'files.write', args: { n: 1 } },
            { command: 'nope' },
            { command: 'files.read', args: { path: 'p' } },
          ],
        }),
        'batch',
      );
      expect(r.truncated).toBe(false);
      expect(r.results.map((x) => x.status)).toEqual(['executed', 'unknown_command', 'executed']);
      const ids = [r.outputId, ...r.results.map((x) => x.outputId)];
      const nums = ids.map((id) => Number(id?.split('-').pop()));
      expect(nums).toEqual([...nums].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(4);
    });

    it('executed summaries replace completed by its count and drop the hint; bad-args keeps its signature [HC-118, HC-120, HC-121, HC-122]', async () => {
      sc.script({
        commands,
        behaviour: {
          'files.write': {
            answer: {
              ok: true,
              id: 'files.write',
              code: 'ok',
              mayHaveLanded: true,
              completed: ['a', 'b', 'c'],
              body: 1,
            },
          },
          'notes.search': {
            answer: {
              ok: false,
              id: 'notes.search',
              code: 'forbidden',
              mayHaveLanded: false,
              completed: [],
              body: null,
            },
          },
          'files.read': {
            answer: {
              ok: false,
              id: 'files.read',
              code: 'bad-args',
              mayHaveLanded: false,
              completed: [],
              body: null,
            },
          },
        },
      });
      const r = withStatus(
        await call('run_command', {
          calls: [{ command: 'files.write' }, { command: 'notes.search' }, { command: 'files.read' }],
        }),
        'batch',
      );
      const [w, s, b] = r.results.map((x) => withStatus(x, 'executed'));
      expect(w?.outcome).not.toHaveProperty('completed');
      expect(w?.outcome.completedOmitted).toBe(3);
      expect(s?.outcome).toMatchObject({ code: 'not_granted' });
      expect(s).not.toHaveProperty('hint');
      expect(b?.signature).toMatch(/^files\.read\(/);
    });

    it('more than sixteen calls is batch_too_large in place of the batch, nothing sent or listed [HC-85, HC-109, HC-114]', async () => {
      const r = await call('run_command', {
        calls: Array.from({ length: 17 }, () => ({ command: 'files.write' })),
      });
      expect(r).toMatchObject({ status: 'failed_to_deliver', landed: 'no', code: 'batch_too_large' });
      expect(sc.log()).toHaveLength(0);
    });

    it('a batch of zero calls is refused (invalid_input) with nothing sent [HC-86]', async () => {
      expect(await call('run_command', { calls: [] })).toMatchObject({
        status: 'failed_to_deliver',
        landed: 'no',
        code: 'invalid_input',
      });
      expect(sc.log()).toHaveLength(0);
    });

    it('naming both command and calls is refused (invalid_input) [HC-87]', async () => {
      expect(
        await call('run_command', { command: 'files.write', calls: [{ command: 'files.write' }] }),
      ).toMatchObject({ code: 'invalid_input' });
      expect(sc.log()).toHaveLength(0);
    });

    it('a malformed call comes back as its own result and the others still run [HC-94, HC-112]', async () => {
      sc.script({ commands, behaviour: { 'files.read': { mode: 'lost' } } });
      const r = withStatus(
        await callRaw('run_command', {
          calls: [
            { command: 'files.write' },
            { command: 42 },
            { command: 'files.read' },
            { command: 'files.write' },
          ],
        }),
        'batch',
      );
      expect(r.results.map((x) => [x.status, 'code' in x ? x.code : undefined])).toEqual([
        ['executed', undefined],
        ['failed_to_deliver', 'invalid_input'],
        ['failed_to_deliver', 'answer_lost'],
        ['executed', undefined],
      ]);
      expect(r.results[2]).toMatchObject({ landed: 'unknown' });
    });

    it('an unreadable catalog stops the whole batch [HC-114]', async () => {
      sc.script({ commands, list: { mode: 'malformed' } });
      const r = await call('run_command', { calls: [{ command: 'files.write' }, { command: 'files.read' }] });
      expect(r).toMatchObject({ status: 'failed_to_deliver', landed: 'no', code: 'malformed_payload' });
      expect(r).not.toHaveProperty('results');
    });

    it('sixteen calls of a 200 ms command start one host run each, never more than four in flight [HC-32, HC-92, HC-93]', async () => {
      sc.script({ commands, behaviour: { 'files.write': { sleepMs: 200 } } });
      const r = withStatus(
        await call('run_command', {
          calls: Array.from({ length: 16 }, (_, i) => ({ command: 'files.write', args: { i } })),
        }),
        'batch',
      );
      expect(r.results.every((x) => x.status === 'executed')).toBe(true);
      const runs = sc.runs();
      expect(runs).toHaveLength(16);
      const max = Math.max(...runs.map((x) => x.concurrent as number));
      expect(max).toBeLessThanOrEqual(4);
      expect(max).toBeGreaterThanOrEqual(2);
    });

    it('calls reached after the turn was cancelled come back cancelled; calls already sent settle [HC-113]', async () => {
      sc.script({ commands, behaviour: { 'files.write': { sleepMs: 400 } } });
      await call('list_commands', {});
      const ac = new AbortController();
      const pending = call(
        'run_command',
        { calls: Array.from({ length: 6 }, () => ({ command: 'files.write' })) },
        { signal: ac.signal },
      );
      await until(() => sc.runs().length === 4, 'four calls to reach the host');
      ac.abort();
      const r = withStatus(await pending, 'batch');
      expect(r.results.slice(0, 4).map((x) => x.status)).toEqual([
        'executed',
        'executed',
        'executed',
        'executed',
      ]);
      expect(r.results.slice(4).map((x) => withStatus(x, 'failed_to_deliver').code)).toEqual([
        'cancelled',
        'cancelled',
      ]);
      expect(sc.runs()).toHaveLength(4);
    });

    it('answers are charged in order; one that would fit alone is left out when earlier ones used the bound [HC-127, HC-128, HC-129]', async () => {
      const body = Array.from({ length: 4000 }, (_, i) => `item-${i}`);
      sc.script({
        commands,
        behaviour: {
          'files.write': {
            answer: { ok: true, id: 'files.write', code: 'ok', mayHaveLanded: true, completed: [], body },
          },
        },
      });
      const single = withStatus(await call('run_command', { command: 'files.write' }), 'executed');
      expect(single.truncated).toBe(false);
      const r = withStatus(
        await call('run_command', {
          calls: [{ command: 'files.write' }, { command: 'files.write' }],
        }),
        'batch',
      );
      const [first, second] = r.results.map((x) => withStatus(x, 'executed'));
      expect(first && admitted(first.entry).value).toHaveLength(4000);
      expect(first).not.toHaveProperty('truncated');
      expect(second?.truncated).toBe(true);
      expect(second?.entry).not.toHaveProperty('value');
      expect(r.truncated).toBe(true);
    });
  });

  describe('run_read_command', () => {
    it('runs the same invocation with the read-only demand appended, outside the model’s arguments [HC-28, HC-138, HC-157]', async () => {
      const r = await call('run_read_command', {
        command: 'files.read',
        args: { path: 'a', readOnly: false },
      });
      expect(r.status).toBe('executed');
      expect(sc.runs()[0]).toMatchObject({ readOnly: true, args: { path: 'a', readOnly: false } });
      const b = await call('run_read_command', {
        calls: [{ command: 'files.read' }, { command: 'files.read' }],
      });
      expect(b.status).toBe('batch');
      expect(sc.runs().every((x) => x.readOnly === true)).toBe(true);
      expect(await callRaw('run_read_command', { command: 'files.read', readOnly: false })).toMatchObject({
        code: 'invalid_input',
      });
    });

    it('a row whose effect is not read is not_granted, landed no, with a hint, and nothing is sent [HC-144, HC-147]', async () => {
      const r = withStatus(await call('run_read_command', { command: 'files.write' }), 'not_granted');
      expect(r).toMatchObject({
        landed: 'no',
        code: 'not_granted',
        reasonCode: 'effect_not_read',
      });
      expect(r.hint).toBeTruthy();
      expect(sc.runs()).toHaveLength(0);
    });

    it('without the literal broker stamp the call is not_granted; a stamp in the arguments counts for nothing [HC-145, HC-148, HC-160]', async () => {
      const a = await call('run_read_command', { command: 'notes.search', args: { readOnlyGranted: true } });
      const b = await call('run_read_command', { command: 'weird.stamp' });
      expect(a).toMatchObject({ status: 'not_granted', landed: 'no', reasonCode: 'read_only_not_granted' });
      expect(b).toMatchObject({ status: 'not_granted', landed: 'no', reasonCode: 'read_only_not_granted' });
      expect(sc.runs()).toHaveLength(0);
    });

    it('a command the fresh listing no longer shows is unknown_command [HC-146]', async () => {
      await call('list_commands', {});
      sc.script({ commands: commands.filter((c) => c.id !== 'files.read') });
      expect(await call('run_read_command', { command: 'files.read' })).toMatchObject({
        status: 'unknown_command',
      });
      expect(sc.runs()).toHaveLength(0);
    });

    it('a grant changed between discovery and execution is caught by the fresh read [HC-37, HC-156]', async () => {
      await call('list_commands', {});
      sc.script({
        commands: commands.map((c) => (c.id === 'files.read' ? { ...c, readOnlyGranted: false } : c)),
      });
      expect(await call('run_read_command', { command: 'files.read' })).toMatchObject({
        status: 'not_granted',
        reasonCode: 'read_only_not_granted',
      });
      expect(sc.runs()).toHaveLength(0);
    });

    it('shares the catalog lookup, argument checks and result shapes of run_command [HC-139, HC-140]', async () => {
      expect(await call('run_read_command', { command: 'nope' })).toMatchObject({
        status: 'unknown_command',
      });
      expect(await call('run_read_command', { calls: [] })).toMatchObject({ code: 'invalid_input' });
      expect(
        await call('run_read_command', { command: 'files.read', args: { s: 'x'.repeat(17000) } }),
      ).toMatchObject({ code: 'invalid_input' });
      const r = await call('run_read_command', { command: 'files.read', args: { path: 'a' } });
      expect(r).toMatchObject({ status: 'executed', entry: { status: 'admitted' } });
    });
  });

  describe('the answer is Loom data', () => {
    const labelled = (ifc: unknown) => ({
      ok: true,
      id: 'files.read',
      code: 'ok',
      mayHaveLanded: false,
      completed: [],
      body: { text: 'the secret text' },
      ifc,
    });

    it('an answer labelled above the ceiling is withheld; the model sees only a content-blind outcome, status and reasonCode [HC-162, HC-163, HC-165, HC-170, HC-171] [SEC-4]', async () => {
      sc.script({ commands, behaviour: { 'files.read': { answer: labelled(SECRET) } } });
      run = createRun({ mode: 'enforce-explicit', ceiling: [] });
      const r = await executed({ command: 'files.read' });
      expect(r.entry).toEqual({ status: 'withheld', reasonCode: 'cfc_ceiling_exceeded' });
      expect(JSON.stringify(r)).not.toContain('the secret text');
      expect(r.outcome).toEqual({ withheld: true, mayHaveLanded: false });
      expect(run.observations.observations).toHaveLength(0);
    });

    it('an answer without a label takes the query’s label (the run context the arguments came from) [HC-164]', async () => {
      run = createRun({ mode: 'enforce-explicit', ceiling: [], initialLabel: SECRET as never });
      const r = await executed({ command: 'files.write' });
      expect(r.entry).toEqual({ status: 'withheld', reasonCode: 'cfc_ceiling_exceeded' });
      const open = createRun({
        mode: 'enforce-explicit',
        ceiling: ['secret'],
        initialLabel: SECRET as never,
      });
      run = open;
      const ok = await executed({ command: 'files.write' });
      expect(ok.entry).toMatchObject({ status: 'admitted', labelSource: 'query' });
    });

    it('an admitted answer is the entry, held as a command document with provenance; its label is observed, not shown [HC-166, HC-167, HC-168, HC-173, HC-174]', async () => {
      sc.script({
        commands,
        behaviour: {
          'board.post': {
            answer: {
              ok: true,
              id: 'board.post',
              code: 'ok',
              mayHaveLanded: true,
              completed: [],
              body: { version: 4, text: 'y'.repeat(9000) },
              ifc: SECRET,
            },
          },
        },
      });
      run = createRun({ mode: 'enforce-explicit', ceiling: ['secret'], actor: 'agent:tester' });
      const r = await executed({ command: 'board.post', loomId: 'loom-9' });
      const entry = admitted(r.entry);
      expect(entry.labelSource).toBe('row');
      expect(entry.value).toEqual({ version: 4, text: `${'y'.repeat(LIMITS.entryString)}…` });
      expect(JSON.stringify(r)).not.toContain('confidentiality');
      const doc = run.referents.get(entry.referent);
      expect(doc).toMatchObject({
        kind: 'document',
        labelSource: 'command',
        provenance: { command: 'board.post', actor: 'agent:tester', loomId: 'loom-9', version: 4 },
      });
      expect(run.observations.observations).toHaveLength(1);
      expect(run.observations.context.confidentiality).toEqual(['secret']);
    });

    it('a result that names a held handle links the document minted from it [HC-169]', async () => {
      const first = admitted((await executed({ command: 'files.write' })).entry);
      sc.script({
        commands,
        behaviour: {
          'files.write': {
            answer: {
              ok: true,
              id: 'files.write',
              code: 'ok',
              mayHaveLanded: true,
              completed: [],
              body: { handle: first.referent },
            },
          },
        },
      });
      const second = admitted((await executed({ command: 'files.write' })).entry);
      expect(run.referents.get(second.referent)?.derivedFrom).toBe(first.referent);
    });

    it('a run past its referent bound expires the oldest document cleanly while the newest still cites', async () => {
      run = createRun({ mode: 'enforce-explicit', ceiling: ['secret'], referents: { maxCount: 3 } });
      sc.script({ commands, behaviour: { 'files.read': { answer: labelled(SECRET) } } });
      const first = admitted((await executed({ command: 'files.read' })).entry);
      sc.script({ commands });
      const ids = [first.referent];
      for (let i = 0; i < 4; i++)
        ids.push(admitted((await executed({ command: 'files.write' })).entry).referent);
      expect(ids).toEqual(['doc-1', 'doc-2', 'doc-3', 'doc-4', 'doc-5']);
      expect(run.referents.lookup('doc-1')).toMatchObject({ status: 'expired', id: 'doc-1' });
      expect(run.referents.lookup('doc-2')).toMatchObject({ status: 'expired' });
      expect(run.referents.lookup('doc-5')).toMatchObject({ status: 'held', referent: { id: 'doc-5' } });
      // An answer naming the expired document is held without a link, and no looser than what the run saw.
      sc.script({
        commands,
        behaviour: {
          'files.write': {
            answer: {
              ok: true,
              id: 'files.write',
              code: 'ok',
              mayHaveLanded: true,
              completed: [],
              body: { handle: 'doc-1' },
            },
          },
        },
      });
      const cites = await call('run_command', { command: 'files.write' });
      expect(cites).toMatchObject({ status: 'executed', entry: { status: 'admitted', referent: 'doc-6' } });
      const doc = run.referents.get('doc-6');
      expect(doc?.derivedFrom).toBeUndefined();
      expect(doc?.label.confidentiality).toEqual(['secret']);
      // The newest still links to what it names.
      sc.script({
        commands,
        behaviour: {
          'files.write': {
            answer: {
              ok: true,
              id: 'files.write',
              code: 'ok',
              mayHaveLanded: true,
              completed: [],
              body: { handle: 'doc-6' },
            },
          },
        },
      });
      const linked = admitted((await executed({ command: 'files.write' })).entry);
      expect(run.referents.get(linked.referent)?.derivedFrom).toBe('doc-6');
      expect(run.referents.size.count).toBe(3);
    });

    it('a run keeps only its latest policy decisions', async () => {
      // Refused by policy (a write with no task slot), so no call reaches the host.
      for (let i = 0; i < 300; i++)
        await call('run_command', { command: 'files.write' }, { slot: undefined });
      await call('list_commands', {});
      expect(run.policyTrace).toHaveLength(256);
      expect(run.policyTrace.at(-1)?.tool).toBe('list_commands');
      expect(run.policyTrace.at(0)?.tool).toBe('run_command');
    });

    it('a batch records one observation, the join of its admitted answers’ labels [HC-130, HC-175]', async () => {
      sc.script({
        commands,
        behaviour: {
          'files.read': { answer: { ...labelled({ confidentiality: ['a'], integrity: [] }) } },
          'notes.search': {
            answer: { ...labelled({ confidentiality: ['b'], integrity: [] }), id: 'notes.search' },
          },
        },
      });
      run = createRun({
        mode: 'enforce-explicit',
        ceiling: ['a', 'b', 'c'],
        initialLabel: { confidentiality: ['c'], integrity: [] } as never,
      });
      const r = withStatus(
        await call('run_command', {
          calls: [{ command: 'files.read' }, { command: 'notes.search' }, { command: 'files.write' }],
        }),
        'batch',
      );
      expect(r.results.map((x) => admitted(withStatus(x, 'executed').entry).labelSource)).toEqual([
        'row',
        'row',
        'query',
      ]);
      expect(run.observations.observations).toHaveLength(1);
      expect(run.observations.observations[0]?.label.confidentiality).toEqual(['a', 'b', 'c']);
    });
  });
});

describe('run_command output bound (model bound)', () => {
  let sc: Scenario;
  afterEach(async () => sc.close());

  it('summaries shrink in order, later calls first: signature dropped, then only ok/code/bodyBytes [HC-123, HC-124, HC-125, HC-126]', async () => {
    sc = await scenario('socket');
    const inputs = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 30 }, (_, i) => [`parameter_${i}`, { type: 'string' }]),
      ),
      required: ['parameter_0'],
    };
    sc.script({
      commands: [row('c.bad', { inputs })],
      behaviour: {
        'c.bad': {
          answer: {
            ok: false,
            id: 'c.bad',
            code: 'bad-args',
            mayHaveLanded: false,
            completed: [],
            body: null,
          },
        },
      },
    });
    const seen = new Set<string>();
    const rank = { sig: 0, nosig: 1, min: 2 } as const;
    for (let bound = 2000; bound <= 9000; bound += 250) {
      const tools = createHostCommandTools({
        config: sc.config,
        client: sc.client,
        bounds: { outputBound: bound },
      });
      const run = createRun({ mode: 'disabled' });
      const r = withStatus(
        await toolOf(tools, 'run_command').execute(
          { calls: Array.from({ length: 8 }, () => ({ command: 'c.bad' })) },
          { run },
        ),
        'batch',
      );
      const results = r.results.map((x) => withStatus(x, 'executed'));
      const forms: (keyof typeof rank)[] = results.map((x) =>
        x.summaryOmitted ? 'min' : x.signature ? 'sig' : 'nosig',
      );
      for (const f of forms) seen.add(f);
      const ranks = forms.map((f) => rank[f]);
      // Later calls shrink first: the forms never grow along the batch.
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      const min = results.find((x) => x.summaryOmitted);
      if (min) expect(Object.keys(min.outcome).sort()).toEqual(['bodyBytes', 'code', 'ok']);
      if (forms.at(-1) !== 'min' || forms[0] !== 'min')
        expect(JSON.stringify(r).length).toBeLessThanOrEqual(bound);
    }
    expect([...seen].sort()).toEqual(['min', 'nosig', 'sig']);
  });
});

describe('policy (prompt-slot authority through @harness/ifc)', () => {
  let sc: Scenario;
  let tools: Record<string, HarnessTool>;
  beforeEach(async () => {
    sc = await scenario('cli');
    sc.script({
      commands: [row('r.one', { effect: 'read', readOnlyGranted: true }), row('w.one', { effect: 'write' })],
    });
    tools = Object.fromEntries(
      createHostCommandTools({ config: sc.config, client: sc.client }).map((t) => [t.name, t]),
    );
  });
  afterEach(async () => sc.close());
  const exec = (name: string, input: unknown, run: RunState, slot?: ToolContext['slot']) =>
    (tools[name] as HarnessTool).execute(input, { run, slot });

  it('run_command is a write, run_read_command and list_commands are reads [HC-131, HC-132, HC-133, HC-141]', () => {
    expect(tools.run_command?.effect).toBe('write');
    expect(tools.run_read_command?.effect).toBe('read');
    expect(tools.list_commands?.effect).toBe('read');
  });

  it('under enforce-explicit a context-bound task cannot run even a declared read through run_command [HC-133, HC-135, HC-137]', async () => {
    const run = createRun({ mode: 'enforce-explicit' });
    const r = await exec('run_command', { command: 'r.one' }, run, 'context');
    expect(r).toMatchObject({
      status: 'failed_to_deliver',
      landed: 'no',
      code: 'not_authorized',
      reasonCode: 'cfc_write_requires_direct_command',
    });
    expect(sc.log()).toHaveLength(0);
    expect((await exec('run_command', { command: 'r.one' }, run, 'direct-command')).status).toBe('executed');
  });

  it('a batch is authorized or refused whole: no call of a refused batch runs [HC-134]', async () => {
    const run = createRun({ mode: 'enforce-strict' });
    const r = await exec(
      'run_command',
      { calls: [{ command: 'r.one' }, { command: 'w.one' }] },
      run,
      'quote',
    );
    expect(r).toMatchObject({ code: 'not_authorized' });
    expect(r).not.toHaveProperty('results');
    expect(sc.log()).toHaveLength(0);
  });

  it('under enforce-strict run_command needs direct-command; context cannot invoke it [HC-136, HC-137, HC-154]', async () => {
    const run = createRun({ mode: 'enforce-strict' });
    expect(await exec('run_command', { command: 'w.one' }, run, 'context')).toMatchObject({
      code: 'not_authorized',
    });
    expect((await exec('run_command', { command: 'w.one' }, run, 'direct-command')).status).toBe('executed');
  });

  it('at enforce-strict a context-bound task may list and run reads; the trace names the admission [HC-142, HC-149, HC-150, HC-155]', async () => {
    const run = createRun({ mode: 'enforce-strict' });
    expect((await exec('list_commands', {}, run, 'context')).status).toBe('ok');
    expect((await exec('run_read_command', { command: 'r.one' }, run, 'context')).status).toBe('executed');
    expect(run.policyTrace.map((d) => d.reasonCode)).toEqual([
      'cfc_enforce_strict_host_command_read',
      'cfc_enforce_strict_host_command_read',
    ]);
    const explicit = createRun({ mode: 'enforce-explicit' });
    expect((await exec('run_read_command', { command: 'r.one' }, explicit, 'context')).status).toBe(
      'executed',
    );
  });

  it('at enforce-strict quoted or absent task authority cannot list or run reads [HC-151, HC-152]', async () => {
    const run = createRun({ mode: 'enforce-strict' });
    for (const slot of ['quote', undefined] as const) {
      expect(await exec('list_commands', {}, run, slot)).toMatchObject({ code: 'not_authorized' });
      expect(await exec('run_read_command', { command: 'r.one' }, run, slot)).toMatchObject({
        code: 'not_authorized',
      });
    }
    expect(sc.log()).toHaveLength(0);
  });

  it('the admission is not a grant: the broker’s current grant is still checked on every invocation [HC-156]', async () => {
    const run = createRun({ mode: 'enforce-strict' });
    sc.script({ commands: [row('r.one', { effect: 'read' })] });
    const r = await exec('run_read_command', { command: 'r.one' }, run, 'context');
    expect(r).toMatchObject({ status: 'not_granted', reasonCode: 'read_only_not_granted' });
  });
});

describe('configuration presence', () => {
  it('without a configuration the three tools are absent [HC-05]', () => {
    expect(createHostCommandTools({ config: undefined })).toEqual([]);
  });

  it('tools kept present without a configuration answer failed_to_deliver, not_configured [HC-107]', async () => {
    const tools = createHostCommandTools({ config: undefined, alwaysRegister: true });
    expect(tools.map((t) => t.name)).toEqual(['list_commands', 'run_command', 'run_read_command']);
    const run = createRun({ mode: 'disabled' });
    for (const t of tools) {
      expect((await t.execute({ command: 'x' }, { run })) as ToolOutcome).toMatchObject({
        status: 'failed_to_deliver',
        landed: 'no',
        code: 'not_configured',
      });
    }
  });

  it("the notice carries the embedder's notices after its own, as they stand at each listing", async () => {
    const sc = await scenario('cli');
    sc.script({ commands: [row('files.read', { effect: 'read' })] });
    let notices: string[] = [];
    const list = toolOf(
      createHostCommandTools({ config: sc.config, client: sc.client, notices: () => notices }),
      'list_commands',
    );
    const run = createRun({ mode: 'disabled' });
    const plain = withStatus(await list.execute({}, { run }), 'ok');
    expect(plain.notice).toMatch(/continues in list_commands\(\{ detail: \[name\] \}\)\.$/);
    notices = ['The commands of pack files run unconfined here.'];
    const told = withStatus(await list.execute({}, { run }), 'ok');
    expect(told.notice).toBe(`${plain.notice} The commands of pack files run unconfined here.`);
    await sc.close();
  });

  it('the harness names no command: every name a tool shows comes from the host listing [HC-01]', async () => {
    const sc = await scenario('cli');
    sc.script({ commands: [] });
    const list = toolOf(createHostCommandTools({ config: sc.config, client: sc.client }), 'list_commands');
    const r = withStatus(await list.execute({}, { run: createRun({ mode: 'disabled' }) }), 'ok');
    expect(r.entries).toEqual([]);
    await sc.close();
  });
});

describe('the typed outcome (ToolOutcome)', () => {
  it('every result the tests above produced parses with its tool’s outcome schema and with ToolOutcome', () => {
    // checkedTools asserted each result as it came back; this says the assertions ran, and over what.
    expect(outcomeLog.checked).toBeGreaterThan(500);
    expect([...outcomeLog.statuses]).toEqual(
      expect.arrayContaining([
        'ok',
        'executed',
        'unknown_command',
        'failed_to_deliver',
        'not_granted',
        'batch',
        'batch:executed',
        'batch:unknown_command',
        'batch:failed_to_deliver',
      ]),
    );
  });
});
