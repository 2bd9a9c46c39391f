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
  structuredOf,
} from '../src/index';
import { expectTextContentWithheld, handedAt, installForTests, sessionTests } from './helpers';

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

    it('reads the entry harness init wrote into ~/.codex/config.toml: node running harness serve for coder', () => {
      expect(s.init.stdout).toContain('created      ~/.codex/config.toml: Codex CLI: mcp_servers.harness\n');
      expect(s.entry).toMatchObject({
        name: SERVER,
        enabled: true,
        transport: { type: 'stdio', command: 'node' },
      });
      expect(s.entry.transport.args).toEqual([
        expect.stringMatching(/\/apps\/cli\/dist\/harness\.js$/),
        'serve',
        '--workspace',
        `${s.project}/.harness/workspace.yaml`,
        '--instance',
        s.instance,
        '--agent',
        'coder',
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
        expect(h.text, `step ${step}`).toMatch(
          /^Wall time: \d+\.\d{4} seconds\nOutput:\n\{"outputId":"out-run-\d+"/,
        );
        const structured = structuredOf(h.body);
        expect(structured, `step ${step}: ${h.body.slice(0, 200)}`).toBeDefined();
        expect(JSON.stringify(structured)).toBe(h.body);
      }
      // The text content serve sent beside an executed result: the output, then one status line.
      for (const [step, command] of EXECUTED_STEPS)
        expectTextContentWithheld(handed(step).body, handed(step).text, command);
    });

    it('hands the model the refusal of git.push, not granted to coder, as JSON with nothing marking it an error', () => {
      expect(JSON.parse(handed(STEP.push).body)).toEqual({
        outputId: expect.stringMatching(/^out-run-\d+$/),
        status: 'unknown_command',
        command: 'git.push',
        suggestions: ['git.diff', 'git.log', 'git.show'],
        hint: 'No command by that name is listed for this run. Call list_commands to see what this run can call.',
      });
    });

    it('hands the model the approval-pending answer as JSON naming the approval and the command that approves it', () => {
      const id = s.approval?.id;
      expect(id).toMatch(/^apr-[0-9a-f]{16}$/);
      const result = JSON.parse(handed(STEP.commitHeld).body);
      expect(result).toMatchObject({
        status: 'executed',
        command: 'git.commit',
        outcome: { ok: false, code: 'approval_required', mayHaveLanded: false, reason: 'approval_required' },
        entry: { status: 'admitted', value: { approval_id: id } },
      });
      expect(result.entry.value.message).toBe(
        `command:call:git:commit needs approval: cautious tier: a write needs approval (request ${id}); ` +
          `a person must approve it (harness approvals approve ${id} --instance ${s.instance}), ` +
          'then the identical call runs once',
      );
    });

    sessionTests({
      client: `Codex ${CODEX.version}`,
      session: () => s,
      json: (step) => handed(step).body,
      untracked: ['? .harness/'],
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
        for (const r of rows) {
          // The header line costs a few tokens on every result.
          expect(r.handedTokens, r.kind).toBeGreaterThan(r.bodyTokens);
          if (r.handed === HandedForm.structured)
            expect(r.bodyTokens, r.kind).toBeGreaterThan(r.textContentTokens);
        }
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
      expect(result.entry.value.message).toMatch(
        /^command:call:git:commit: this exact call was denied by elicitation:codex-mcp-client \(approval apr-/,
      );
    });
  },
);

/**
 * Expects a session whose commit Codex's own answer to serve's question declined: the run ends well in
 * `sandbox`, the audit holds the denial by Codex's MCP client, nothing is committed, and the model is
 * handed the refusal. Returns that refusal's JSON.
 */
function expectDeclinedByCodex(s: CodexSession, sandbox: string): { entry: { value: { message: string } } } {
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
  expect(result).toMatchObject({ outcome: { ok: false, code: 'not_granted', reason: 'approval_denied' } });
  return result;
}
