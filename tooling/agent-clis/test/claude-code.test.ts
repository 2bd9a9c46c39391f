// The real Claude Code (the pinned release, installed once into the cache) drives the real
// `harness serve` that `harness init --client claude-code` registered in a fresh project, against a
// FAKE model server that follows a fixed plan: list the commands, read the status and a diff, ask for
// a command not granted, ask for a commit (held for a person), and ask again once the test approved
// it with `harness approvals approve`. The expectations below are what Claude Code put in each
// tool_result it handed its model, byte for byte where the bytes are stable.
import { tempDir } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLAUDE_CODE,
  CLAUDE_CODE_PLAN,
  type ClaudeCodeSession,
  claudeToolName,
  EXECUTED_STEPS,
  FINAL_TEXT,
  HandedForm,
  RESULT_KINDS,
  repoBins,
  runClaudeCodeScenario,
  SERVER,
  STEP,
  tokenRows,
} from '../src/index';
import { expectLeanReply, expectTokenTargets, handedAt, installForTests, sessionTests } from './helpers';

const { installed, skip } = await installForTests(CLAUDE_CODE, 'the real Claude Code');

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
    let s: ClaudeCodeSession;
    const handed = (step: number) => handedAt(s.handed, step);

    beforeAll(async () => {
      s = await runClaudeCodeScenario({ ...repoBins(), claude: installed.ok ? installed.bin : '' }, dir.path);
    });
    afterAll(() => dir.cleanup());

    it("ends the headless session with the fake model's final text after seven turns, nothing denied", () => {
      expect(s.claude.code, s.claude.stderr).toBe(0);
      const out = JSON.parse(s.claude.stdout) as Record<string, unknown>;
      expect(out).toMatchObject({
        type: 'result',
        subtype: 'success',
        is_error: false,
        num_turns: CLAUDE_CODE_PLAN.length,
        result: FINAL_TEXT,
        permission_denials: [],
      });
    });

    it("asks the fake model once per plan step, each time offering harness serve's six tools as mcp__harness__*", () => {
      expect(s.requests.map((r) => r.step)).toEqual(CLAUDE_CODE_PLAN.map((_, i) => i));
      for (const r of s.requests)
        expect(r.body.tools?.map((t) => t.name)).toEqual(expect.arrayContaining(HARNESS_TOOLS));
      // Besides the Messages API, Claude Code only checks that the base URL answers.
      expect(s.unknownPaths).toEqual(['HEAD /']);
    });

    it("hands the model each executed result as the lean reply's JSON in one string, not the text content", () => {
      for (const [step, command] of EXECUTED_STEPS) {
        const h = handed(step);
        expect(typeof h.block.content, `step ${step}`).toBe('string');
        expect(h.block.is_error, `step ${step}`).toBeUndefined();
        expectLeanReply(h.text, command);
      }
    });

    it('hands the model the listing as its JSON, which for a listing is the text content too', () => {
      const h = handed(STEP.list);
      expect(h.block.is_error).toBeUndefined();
      expect(JSON.parse(h.text)).toMatchObject({ status: 'ok', hidden: 0, omitted: 0, compacted: 0 });
    });

    it('hands the model a refusal as the text content alone, marked is_error: git.push is not granted to coder', () => {
      const h = handed(STEP.push);
      expect(h.block).toMatchObject({ type: 'tool_result', is_error: true });
      expect(h.block.content).toBe(
        '[git.push: unknown_command; nearest: git.diff, git.log, git.show. Call list_commands.]',
      );
    });

    it('hands the model the approval-pending answer as the text content alone, naming the command that approves it', () => {
      const h = handed(STEP.commitHeld);
      expect(h.block).toMatchObject({ type: 'tool_result', is_error: true });
      expect(h.block.content).toBe(
        `a person must approve it (harness approvals approve ${s.approval?.id}), ` +
          `then the identical call runs once (expires ${expiresIn(h.text)})\n[git.commit: approval_required]`,
      );
      expect(s.approval?.id).toMatch(/^apr-[0-9a-f]{16}$/);
    });

    sessionTests({
      client: `Claude Code ${CLAUDE_CODE.version}`,
      session: () => s,
      json: (step) => handed(step).text,
      untracked: ['?? .harness/', '?? .mcp.json'],
      tokenRows: () => tokenRows(s.handed, RESULT_KINDS),
      expectTokenRows: (rows) => {
        expect(rows.map((r) => [r.kind, r.handed, r.isError])).toEqual([
          ['list_commands', HandedForm.same, false],
          ['git.status', HandedForm.structured, false],
          ['git.diff, 200 changed lines', HandedForm.structured, false],
          ['refusal: git.push, not granted', HandedForm.text, true],
          ['approval pending: git.commit', HandedForm.text, true],
          ['git.commit, approved', HandedForm.structured, false],
        ]);
        expectTokenTargets(rows);
      },
    });
  },
);

/** The expiry time the pending answer names (it is the only value of the text the test cannot know). */
function expiresIn(text: string): string {
  return /\(expires ([^)]+)\)/.exec(text)?.[1] ?? 'no expiry in the text';
}
