// The real Codex CLI (the pinned release, installed once into the cache) drives the real
// `harness serve` that `harness init --client codex` registered in `~/.codex/config.toml` of a fresh
// HOME, against a FAKE model server speaking the Responses API that follows a fixed plan: list the
// commands, read the status and a diff, ask for a command not granted, ask for a commit (held for a
// person), and ask again once the test approved it with `harness approvals approve`. The
// expectations below are what Codex put in each function_call_output it handed its model, byte for
// byte where the bytes are stable. Two more sessions show what Codex answers by itself when serve
// asks it for the person's approval.
import { resultText } from '@harness/commands';
import { tempDir } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODEX, codexToolName } from '../src/codex';
import {
  CODEX_PLAN,
  type CodexBins,
  type CodexSession,
  runCodexElicitation,
  runCodexScenario,
} from '../src/codex-scenario';
import { codexOutputParts, codexTokenRows } from '../src/codex-tokens';
import type { HandedResult } from '../src/fake-openai';
import { installPinned } from '../src/install';
import {
  CHANGED_FILE,
  CHANGED_LINES,
  gitIn,
  ORIGINAL_LINES,
  PROJECT_COMMITS,
  STAGED_FILE,
} from '../src/project';
import { COMMIT_MESSAGE, FINAL_TEXT, RESULT_KINDS, repoBins, SERVER, STEP } from '../src/scenario';
import { formatTokenTable, HandedForm, structuredOf } from '../src/tokens';

const installed = await installPinned(CODEX);
const skip = installed.ok ? undefined : `the real Codex CLI is not available: ${installed.reason}`;
if (skip) console.warn(`codex tests skipped: ${skip}`);

function bins(): CodexBins {
  const { harness, loom } = repoBins('');
  return { codex: installed.ok ? installed.bin : '', harness, loom };
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
function handedIn(s: CodexSession, step: number): HandedResult & { body: string } {
  const found = s.handed.find((h) => h.step === step);
  if (!found) throw new Error(`the fake model was handed no result for step ${step}`);
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
      for (const [step, command] of [
        [STEP.status, 'git.status'],
        [STEP.diff, 'git.diff'],
        [STEP.commitApproved, 'git.commit'],
      ] as const) {
        expect(resultText(structuredOf(handed(step).body)!)).toMatch(
          new RegExp(`\\n\\[${command}: ok, exit 0\\]$`),
        );
        expect(handed(step).text).not.toContain(`[${command}: ok, exit 0]`);
      }
    });

    it("hands the model git.status as the executed outcome's JSON, the porcelain lines in an array", () => {
      expect(JSON.parse(handed(STEP.status).body)).toEqual({
        outputId: expect.stringMatching(/^out-run-\d+$/),
        status: 'executed',
        command: 'git.status',
        outcome: {
          ok: true,
          id: 'git.status',
          code: 'ok',
          mayHaveLanded: false,
          completed: [],
          bodyBytes: expect.any(Number),
        },
        entry: {
          status: 'admitted',
          labelSource: 'query',
          referent: expect.stringMatching(/^doc-\d+$/),
          value: {
            status: 'ok',
            output: [
              expect.stringMatching(/^# branch\.oid [0-9a-f]{40}$/),
              '# branch.head main',
              expect.stringMatching(
                new RegExp(`^1 A\\. N\\.\\.\\. 000000 100644 100644 0{40} [0-9a-f]{40} ${STAGED_FILE}$`),
              ),
              expect.stringMatching(
                new RegExp(
                  `^1 \\.M N\\.\\.\\. 100644 100644 100644 [0-9a-f]{40} [0-9a-f]{40} ${CHANGED_FILE}$`,
                ),
              ),
              '? .harness/',
            ],
            stderr: '',
            exitCode: 0,
            durationMs: expect.any(Number),
          },
        },
        truncated: false,
      });
    });

    it("hands the model git.diff as the executed outcome's JSON, the 200-line patch as one escaped string", () => {
      const result = JSON.parse(handed(STEP.diff).body) as { entry: { value: { output: string } } };
      const patch = result.entry.value.output.replace(/^index [0-9a-f]+\.\.[0-9a-f]+ 100644$/m, 'index …');
      expect(patch).toBe(
        [
          `diff --git a/${CHANGED_FILE} b/${CHANGED_FILE}`,
          'index …',
          `--- a/${CHANGED_FILE}`,
          `+++ b/${CHANGED_FILE}`,
          '@@ -1,100 +1,100 @@',
          ...ORIGINAL_LINES.map((l) => `-${l}`),
          ...CHANGED_LINES.map((l) => `+${l}`),
          '',
        ].join('\n'),
      );
      expect(result).toMatchObject({ status: 'executed', command: 'git.diff', truncated: false });
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

    it('runs the commit the test approved with harness approvals approve: the repository holds it', () => {
      expect(s.approval?.run.code, s.approval?.run.stderr).toBe(0);
      expect(s.approval?.run.stdout).toMatch(
        new RegExp(`^${s.approval?.id} approved: the identical call may run once`),
      );
      expect(s.commits).toEqual([COMMIT_MESSAGE, ...PROJECT_COMMITS]);
      expect(gitIn(s.project, 'show', '--name-only', '--format=%an', 'HEAD')).toBe(
        `Project Owner\n\n${STAGED_FILE}\n`,
      );
      expect(JSON.parse(handed(STEP.commitApproved).body)).toMatchObject({
        status: 'executed',
        command: 'git.commit',
        outcome: { ok: true, code: 'ok', mayHaveLanded: true },
      });
    });

    it("audits every call that reached the host under the workspace's agent, coder, and the approval under the person", () => {
      expect(s.audit.map((e) => `${e.run} ${e.actor} ${e.command} ${e.phase} ${e.outcome}`)).toEqual([
        'harness-serve agent:coder * list listed',
        'harness-serve agent:coder git.status start started',
        'harness-serve agent:coder git.status run ok',
        'harness-serve agent:coder git.diff start started',
        'harness-serve agent:coder git.diff run ok',
        'harness-serve agent:coder git.commit run refused',
        'harness-serve person:reviewer git.commit approval approved',
        'harness-serve agent:coder git.commit start started',
        'harness-serve agent:coder git.commit run ok',
      ]);
    });

    it('measures the o200k tokens of each result it handed the model, and prints the table', () => {
      const rows = codexTokenRows(s.handed, RESULT_KINDS);
      console.log(`What Codex ${CODEX.version} handed its model (o200k tokens):\n${formatTokenTable(rows)}`);
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
      expect(s.codex.code, s.codex.stderr).toBe(0);
      expect(s.codex.stderr).toContain('sandbox: danger-full-access\n');
      expect(s.audit.map((e) => `${e.actor} ${e.command} ${e.phase} ${e.outcome}`)).toEqual([
        'agent:coder * list listed',
        'agent:coder git.commit run refused',
        'elicitation:codex-mcp-client git.commit approval denied',
        'agent:coder git.commit run refused',
      ]);
      expect(s.commits).toEqual([...PROJECT_COMMITS]);
      expect(JSON.parse(handedIn(s, 0).body)).toMatchObject({
        outcome: { ok: false, code: 'not_granted', reason: 'approval_denied' },
      });
    });

    it("declines it in Codex's default sandbox with the tools approved: the commit is denied, as if by a person", async () => {
      const s = await runCodexElicitation(bins(), dirs[1].path, 'default');
      expect(s.codex.code, s.codex.stderr).toBe(0);
      expect(s.codex.stderr).toContain('sandbox: read-only\n');
      expect(s.audit.map((e) => `${e.actor} ${e.command} ${e.phase} ${e.outcome}`)).toEqual([
        'agent:coder * list listed',
        'agent:coder git.commit run refused',
        'elicitation:codex-mcp-client git.commit approval denied',
        'agent:coder git.commit run refused',
      ]);
      expect(s.commits).toEqual([...PROJECT_COMMITS]);
      const result = JSON.parse(handedIn(s, 0).body);
      expect(result).toMatchObject({
        outcome: { ok: false, code: 'not_granted', reason: 'approval_denied' },
      });
      expect(result.entry.value.message).toMatch(
        /^command:call:git:commit: this exact call was denied by elicitation:codex-mcp-client \(approval apr-/,
      );
    });
  },
);
