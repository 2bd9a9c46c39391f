// The real Claude Code (the pinned release, installed once into the cache) drives the real
// `harness serve` that `harness init --client claude-code` registered in a fresh project, against a
// FAKE model server that follows a fixed plan: list the commands, read the status and a diff, ask for
// a command not granted, ask for a commit (held for a person), and ask again once the test approved
// it with `harness approvals approve`. The expectations below are what Claude Code put in each
// tool_result it handed its model, byte for byte where the bytes are stable.
import { resultText } from '@harness/commands';
import { tempDir } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_CODE, claudeToolName } from '../src/claude-code';
import type { HandedResult } from '../src/fake-anthropic';
import { installPinned } from '../src/install';
import {
  CHANGED_FILE,
  CHANGED_LINES,
  gitIn,
  ORIGINAL_LINES,
  PROJECT_COMMITS,
  STAGED_FILE,
} from '../src/project';
import {
  COMMIT_MESSAGE,
  FINAL_TEXT,
  PLAN,
  RESULT_KINDS,
  repoBins,
  runScenario,
  type ScenarioResult,
  SERVER,
  STEP,
} from '../src/scenario';
import { formatTokenTable, HandedForm, structuredOf, tokenRows } from '../src/tokens';

const installed = await installPinned(CLAUDE_CODE);
const skip = installed.ok ? undefined : `the real Claude Code is not available: ${installed.reason}`;
if (skip) console.warn(`claude-code tests skipped: ${skip}`);

/** The six tools `harness serve` offers, as Claude Code names them for its model. */
const HARNESS_TOOLS = [
  'list_commands',
  'run_command',
  'run_read_command',
  'loom_compose',
  'loom_inspect',
  'loom_authoring_context',
].map((t) => claudeToolName(SERVER, t));

describe.skipIf(skip !== undefined)(
  `Claude Code ${CLAUDE_CODE.version} driving harness serve, against the fake model`,
  () => {
    const dir = tempDir('harness-agent-clis-');
    let s: ScenarioResult;
    const handed = (step: number): HandedResult => {
      const found = s.handed.find((h) => h.step === step);
      if (!found) throw new Error(`the fake model was handed no result for step ${step}`);
      return found;
    };

    beforeAll(async () => {
      s = await runScenario(repoBins(installed.ok ? installed.bin : ''), dir.path);
    });
    afterAll(() => dir.cleanup());

    it("ends the headless session with the fake model's final text after seven turns, nothing denied", () => {
      expect(s.claude.code, s.claude.stderr).toBe(0);
      const out = JSON.parse(s.claude.stdout) as Record<string, unknown>;
      expect(out).toMatchObject({
        type: 'result',
        subtype: 'success',
        is_error: false,
        num_turns: PLAN.length,
        result: FINAL_TEXT,
        permission_denials: [],
      });
    });

    it("asks the fake model once per plan step, each time offering harness serve's six tools as mcp__harness__*", () => {
      expect(s.requests.map((r) => r.step)).toEqual(PLAN.map((_, i) => i));
      for (const r of s.requests)
        expect(r.body.tools?.map((t) => t.name)).toEqual(expect.arrayContaining(HARNESS_TOOLS));
      // Besides the Messages API, Claude Code only checks that the base URL answers.
      expect(s.unknownPaths).toEqual(['HEAD /']);
    });

    it('hands the model each executed result as the structuredContent JSON in one string, not the text content', () => {
      for (const [step, command] of [
        [STEP.status, 'git.status'],
        [STEP.diff, 'git.diff'],
        [STEP.commitApproved, 'git.commit'],
      ] as const) {
        const h = handed(step);
        expect(typeof h.block.content, `step ${step}`).toBe('string');
        expect(h.block.is_error, `step ${step}`).toBeUndefined();
        const structured = structuredOf(h.text);
        expect(structured, `step ${step}: ${h.text.slice(0, 200)}`).toBeDefined();
        expect(JSON.stringify(structured)).toBe(h.text);
        // The text content serve sent beside it: the output, then one status line.
        const text = resultText(structured!);
        expect(text).toMatch(new RegExp(`\\n\\[${command}: ok, exit 0\\]$`));
        expect(h.text).not.toContain(`[${command}: ok, exit 0]`);
      }
    });

    it('hands the model the listing as its JSON, which for a listing is the text content too', () => {
      const h = handed(STEP.list);
      expect(h.block.is_error).toBeUndefined();
      const structured = structuredOf(h.text);
      expect(structured).toMatchObject({ status: 'ok', hidden: 0, omitted: 0, compacted: 0 });
      expect(resultText(structured!)).toBe(h.text);
    });

    it("hands the model git.status as the executed outcome's JSON, the porcelain lines in an array", () => {
      expect(JSON.parse(handed(STEP.status).text)).toEqual({
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
              '? .mcp.json',
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
      const result = JSON.parse(handed(STEP.diff).text) as { entry: { value: { output: string } } };
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

    it('hands the model a refusal as the text content alone, marked is_error: git.push is not granted to coder', () => {
      const h = handed(STEP.push);
      expect(h.block).toMatchObject({ type: 'tool_result', is_error: true });
      expect(h.block.content).toBe(
        '[git.push: unknown_command; nearest: git.diff, git.log, git.show. No command by that name is listed for this run. Call list_commands to see what this run can call.]',
      );
    });

    it('hands the model the approval-pending answer as the text content alone, naming the command that approves it', () => {
      const h = handed(STEP.commitHeld);
      expect(h.block).toMatchObject({ type: 'tool_result', is_error: true });
      expect(h.block.content).toBe(
        `command:call:git:commit needs approval: cautious tier: a write needs approval (request ${s.approval?.id}); ` +
          `a person must approve it (harness approvals approve ${s.approval?.id} --instance ${s.instance}), ` +
          `then the identical call runs once (expires ${expiresIn(h.text)})\n[git.commit: approval_required]`,
      );
      expect(s.approval?.id).toMatch(/^apr-[0-9a-f]{16}$/);
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
      expect(JSON.parse(handed(STEP.commitApproved).text)).toMatchObject({
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
      const rows = tokenRows(s.handed, RESULT_KINDS);
      console.log(
        `What Claude Code ${CLAUDE_CODE.version} handed its model (o200k tokens):\n${formatTokenTable(rows)}`,
      );
      expect(rows.map((r) => [r.kind, r.handed, r.isError])).toEqual([
        ['list_commands', HandedForm.same, false],
        ['git.status', HandedForm.structured, false],
        ['git.diff, 200 changed lines', HandedForm.structured, false],
        ['refusal: git.push, not granted', HandedForm.text, true],
        ['approval pending: git.commit', HandedForm.text, true],
        ['git.commit, approved', HandedForm.structured, false],
      ]);
      // Each executed result handed as JSON costs more than the text content serve sent beside it.
      for (const r of rows.filter((row) => row.handed === HandedForm.structured))
        expect(r.handedTokens, r.kind).toBeGreaterThan(r.textContentTokens);
    });
  },
);

/** The expiry time the pending answer names (it is the only value of the text the test cannot know). */
function expiresIn(text: string): string {
  return /\(expires ([^)]+)\)/.exec(text)?.[1] ?? 'no expiry in the text';
}
