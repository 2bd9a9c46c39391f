// The real Codex CLI (the pinned release, installed once into the cache) drives the real
// `harness serve` that `harness init --client codex` registered in `~/.codex/config.toml` of a fresh
// HOME, against a FAKE model server speaking the Responses API that follows a fixed plan: list the
// commands, read the status and a diff, ask for a command not granted, ask for a commit (held for a
// person), and ask again once the test approved it with `harness approvals approve`. The
// expectations below are what Codex put in each function_call_output it handed its model, byte for
// byte where the bytes are stable. Two more sessions show what Codex answers by itself when serve
// asks it for the person's approval.
import { tempDir } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CODEX,
  CODEX_PLAN,
  type CodexBins,
  type CodexSession,
  codexOutputParts,
  codexTokenRows,
  codexToolName,
  EXECUTED_STEPS,
  FINAL_TEXT,
  HandedForm,
  PROJECT_COMMITS,
  RESULT_KINDS,
  type ResponsesHandedResult,
  repoBins,
  runCodexElicitation,
  runCodexScenario,
  SERVER,
  STEP,
} from '../src/index';
import { expectLeanReply, expectTokenTargets, handedAt, installForTests, sessionTests } from './helpers';

const { installed, skip } = await installForTests(CODEX, 'the real Codex CLI');

function bins(): CodexBins {
  return { ...repoBins(), codex: installed.ok ? installed.bin : '' };
}

/** The six tools `harness serve` offers, by the names Codex gives them inside its namespace. */
const HARNESS_TOOLS = [
  'list_commands',
  'loom_authoring_context',
  'loom_compose',
  'loom_inspect',
  'run_command',
  'run_read_command',
];

/** What the fake model was handed for `step`, split into Codex's header and the JSON body. */
function handedIn(s: CodexSession, step: number): ResponsesHandedResult & { body: string } {
  const found = handedAt(s.handed, step);
  const parts = codexOutputParts(found.text);
  if (!parts) throw new Error(`step ${step}'s output has no wall-time header: ${found.text.slice(0, 200)}`);
  return { ...found, body: parts.body };
}

describe.skipIf(skip !== undefined)(
  `Codex ${CODEX.version} driving harness serve, against the fake model`,
  () => {
    const dir = tempDir('harness-agent-clis-codex-');
    let s: CodexSession;
    const handed = (step: number) => handedIn(s, step);

    beforeAll(async () => {
      s = await runCodexScenario(bins(), dir.path);
    });
    afterAll(() => dir.cleanup());

    it('reads the entry harness init wrote into ~/.codex/config.toml: node running harness serve, naming no project', () => {
      expect(s.init.stdout).toContain(
        'created      ~/.codex/config.toml: Codex CLI: mcp_servers.harness; it names no project: serve finds the one it starts in\n',
      );
      expect(s.entry).toMatchObject({
        name: SERVER,
        enabled: true,
        transport: { type: 'stdio', command: 'node', cwd: null },
      });
      // Codex starts it where Codex runs, the project: no workspace, instance or agent in the entry.
      expect(s.entry.transport.args).toEqual([
        expect.stringMatching(/\/apps\/cli\/dist\/harness\.js$/),
        'serve',
      ]);
    });

    it("ends the headless run with the fake model's final text on stdout, after one request per plan step", () => {
      expect(s.codex.code, s.codex.stderr).toBe(0);
      expect(s.codex.stdout).toBe(`${FINAL_TEXT}\n`);
      expect(s.requests.map((r) => r.step)).toEqual(CODEX_PLAN.map((_, i) => i));
      expect(s.unknownPaths).toEqual([]);
    });

    it("offers the model harness serve's six tools as functions in the namespace mcp__harness", () => {
      for (const r of s.requests) {
        const namespace = r.body.tools?.find((t) => t.type === 'namespace' && t.name === `mcp__${SERVER}`);
        expect(namespace?.tools?.map((t) => `${t.type} ${t.name}`).sort()).toEqual(
          HARNESS_TOOLS.map((t) => `function ${t}`),
        );
      }
      expect(s.handed.map((h) => h.name)).toEqual(
        CODEX_PLAN.slice(0, STEP.final).map((p) => (p.kind === 'tool_call' ? p.name : '')),
      );
      expect(s.handed[0]?.name).toBe(codexToolName(SERVER, 'list_commands'));
    });

    it('hands the model every result as one string, a wall-time line then the structuredContent JSON, never the text content', () => {
      for (let step = STEP.list; step < STEP.final; step++) {
        const h = handed(step);
        expect(Object.keys(h.item).sort(), `step ${step}`).toEqual(['call_id', 'id', 'output', 'type']);
        expect(h.item.output, `step ${step}`).toBe(h.text);
        expect(h.text, `step ${step}`).toMatch(/^Wall time: \d+\.\d{4} seconds\nOutput:\n\{"/);
      }
      expect(JSON.parse(handed(STEP.list).body)).toMatchObject({ status: 'ok', hidden: 0 });
      // An executed call's structuredContent is its lean reply.
      for (const [step, command] of EXECUTED_STEPS) expectLeanReply(handed(step).body, command);
    });

    it('hands the model the refusal of git.push, not granted to coder, as JSON whose ok: false marks it an error', () => {
      expect(JSON.parse(handed(STEP.push).body)).toEqual({
        ok: false,
        code: 'unknown_command',
        nearest: ['git.diff', 'git.log', 'git.show'],
        hint: 'Call list_commands.',
      });
    });

    it('hands the model the approval-pending answer as JSON naming the approval and the command that approves it', () => {
      const id = s.approval?.id;
      expect(id).toMatch(/^apr-[0-9a-f]{16}$/);
      expect(JSON.parse(handed(STEP.commitHeld).body)).toEqual({
        ok: false,
        code: 'approval_required',
        message: `a person must approve it (harness approvals approve ${id}), then the identical call runs once`,
        approval: id,
        expires: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
    });

    sessionTests({
      client: `Codex ${CODEX.version}`,
      session: () => s,
      json: (step) => handed(step).body,
      untracked: ['?? .harness/'],
      tokenRows: () => codexTokenRows(s.handed, RESULT_KINDS),
      expectTokenRows: (rows) => {
        expect(rows.map((r) => [r.kind, r.handed])).toEqual([
          ['list_commands', HandedForm.same],
          ['git.status', HandedForm.structured],
          ['git.diff, 200 changed lines', HandedForm.structured],
          ['refusal: git.push, not granted', HandedForm.structured],
          ['approval pending: git.commit', HandedForm.structured],
          ['git.commit, approved', HandedForm.structured],
        ]);
        // The header line costs a few tokens on every result.
        for (const r of rows) expect(r.handedTokens, r.kind).toBeGreaterThan(r.bodyTokens);
        expectTokenTargets(rows);
      },
    });
  },
);

describe.skipIf(skip !== undefined)(
  `Codex ${CODEX.version} answering harness serve's approval request itself (the entry as init wrote it)`,
  () => {
    const dirs = [tempDir('harness-agent-clis-codex-'), tempDir('harness-agent-clis-codex-')] as const;
    afterAll(() => {
      for (const d of dirs) d.cleanup();
    });

    it('cannot approve it under --dangerously-bypass-approvals-and-sandbox: the question has a required yes/no, which Codex does not fill on its own, so it declines and nothing runs', async () => {
      // Codex accepts a form with no field by itself in full-access mode; serve's question has one
      // required field, so no client approves a call without an answer.
      const s = await runCodexElicitation(bins(), dirs[0].path, 'full-access');
      expectDeclinedByCodex(s, 'danger-full-access');
    });

    it("declines it in Codex's default sandbox with the tools approved: the commit is denied, as if by a person", async () => {
      const s = await runCodexElicitation(bins(), dirs[1].path, 'default');
      const result = expectDeclinedByCodex(s, 'read-only');
      expect(result.message).toMatch(
        /^git\.commit: this exact call was denied by elicitation:codex-mcp-client \(approval apr-/,
      );
    });
  },
);

/**
 * Expects a session whose commit Codex's own answer to serve's question declined: the run ends well in
 * `sandbox`, the audit holds the denial by Codex's MCP client, nothing is committed, and the model is
 * handed the refusal. Returns that refusal's JSON.
 */
function expectDeclinedByCodex(s: CodexSession, sandbox: string): { message: string } {
  expect(s.codex.code, s.codex.stderr).toBe(0);
  expect(s.codex.stderr).toContain(`sandbox: ${sandbox}\n`);
  expect(s.audit.map((e) => `${e.actor} ${e.command} ${e.phase} ${e.outcome}`)).toEqual([
    'agent:coder * list listed',
    'agent:coder git.commit run refused',
    'elicitation:codex-mcp-client git.commit approval denied',
    'agent:coder git.commit run refused',
  ]);
  expect(s.commits).toEqual([...PROJECT_COMMITS]);
  const result = JSON.parse(handedIn(s, 0).body);
  expect(result).toMatchObject({ ok: false, code: 'not_granted', reason: 'approval_denied' });
  return result;
}
