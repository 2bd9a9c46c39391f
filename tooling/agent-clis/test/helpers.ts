// Expectations every client's session meets, whatever the client hands its model: the commit the
// person approved, the audit, the git.status and git.diff outcomes, the text content kept from the
// model, and the printed token table; and the install a test file needs.
import { resultText } from '@harness/commands';
import { expect, it } from 'vitest';
import {
  CHANGED_FILE,
  CHANGED_LINES,
  COMMIT_MESSAGE,
  formatTokenTable,
  gitIn,
  type HandedResult,
  type Installed,
  installPinned,
  ORIGINAL_LINES,
  type PinnedPackage,
  PROJECT_COMMITS,
  type SessionResult,
  STAGED_FILE,
  STEP,
  structuredOf,
  type TokenRow,
} from '../src/index';

/** A session of any client, as the shared expectations read it. */
type AnySession = SessionResult<unknown, HandedResult>;

/** The result the fake model was handed for `step`; the test fails when there is none. */
export function handedAt<Handed extends HandedResult>(handed: readonly Handed[], step: number): Handed {
  const found = handed.find((h) => h.step === step);
  if (!found) throw new Error(`the fake model was handed no result for step ${step}`);
  return found;
}

/**
 * Expects `json` (what the model was handed for an executed `command`, `handed` in full) to be a tool
 * outcome whose text content, the output then one status line, the model was not handed.
 */
export function expectTextContentWithheld(json: string, handed: string, command: string): void {
  const structured = structuredOf(json);
  expect(structured, `${command}: ${json.slice(0, 200)}`).toBeDefined();
  expect(resultText(structured!)).toMatch(new RegExp(`\\n\\[${command}: ok, exit 0\\]$`));
  expect(handed).not.toContain(`[${command}: ok, exit 0]`);
}

/** The executed git.status outcome's JSON, `untracked` being the `? …` lines after the project's two. */
function executedStatus(untracked: readonly string[]): unknown {
  return {
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
            new RegExp(`^1 \\.M N\\.\\.\\. 100644 100644 100644 [0-9a-f]{40} [0-9a-f]{40} ${CHANGED_FILE}$`),
          ),
          ...untracked,
        ],
        stderr: '',
        exitCode: 0,
        durationMs: expect.any(Number),
      },
    },
    truncated: false,
  };
}

/** Expects `json` to be the executed git.diff outcome, the 200-line patch as one string. */
function expectDiffOutcome(json: string): void {
  const result = JSON.parse(json) as { entry: { value: { output: string } } };
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
}

/**
 * Expects the approval to have succeeded, the repository to hold the commit, and `json` (what the model
 * was handed for the approved commit) to be the executed commit.
 */
function expectApprovedCommit(s: AnySession, json: string): void {
  expect(s.approval?.run.code, s.approval?.run.stderr).toBe(0);
  expect(s.approval?.run.stdout).toMatch(
    new RegExp(`^${s.approval?.id} approved: the identical call may run once`),
  );
  expect(s.commits).toEqual([COMMIT_MESSAGE, ...PROJECT_COMMITS]);
  expect(gitIn(s.project, 'show', '--name-only', '--format=%an', 'HEAD')).toBe(
    `Project Owner\n\n${STAGED_FILE}\n`,
  );
  expect(JSON.parse(json)).toMatchObject({
    status: 'executed',
    command: 'git.commit',
    outcome: { ok: true, code: 'ok', mayHaveLanded: true },
  });
}

/** Expects the audit of the whole plan: every call under the agent, coder, and the approval under the person. */
function expectScenarioAudit(s: AnySession): void {
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
}

/** What {@link sessionTests} reads of a client's session. */
export interface SessionTestsOf<Row extends TokenRow> {
  /** The client and its version, as the token table's heading names it. */
  client: string;
  /** The session; read when the tests run. */
  session: () => AnySession;
  /** The outcome JSON the model was handed for a step (after any header the client adds). */
  json: (step: number) => string;
  /** The `git status` lines of what the client's `harness init` added to the project. */
  untracked: readonly string[];
  /** The token rows of the session. */
  tokenRows: () => Row[];
  /** The client's own expectations of its token rows. */
  expectTokenRows: (rows: Row[]) => void;
}

/**
 * The tests every client's whole session passes, whatever it hands its model: git.status and git.diff
 * as their outcomes' JSON, the commit the person approved, the audit, and the token table it prints.
 */
export function sessionTests<Row extends TokenRow>(of: SessionTestsOf<Row>): void {
  it("hands the model git.status as the executed outcome's JSON, the porcelain lines in an array", () => {
    expect(JSON.parse(of.json(STEP.status))).toEqual(executedStatus(of.untracked));
  });

  it("hands the model git.diff as the executed outcome's JSON, the 200-line patch as one escaped string", () => {
    expectDiffOutcome(of.json(STEP.diff));
  });

  it('runs the commit the test approved with harness approvals approve: the repository holds it', () => {
    expectApprovedCommit(of.session(), of.json(STEP.commitApproved));
  });

  it("audits every call that reached the host under the workspace's agent, coder, and the approval under the person", () => {
    expectScenarioAudit(of.session());
  });

  it('measures the o200k tokens of each result it handed the model, and prints the table', () => {
    const rows = of.tokenRows();
    console.log(`What ${of.client} handed its model (o200k tokens):\n${formatTokenTable(rows)}`);
    of.expectTokenRows(rows);
  });
}

/**
 * Installs the pinned `pkg` for a test file: the install, and why the file's tests are skipped
 * without it (`what` names the CLI in that reason, which is printed).
 */
export async function installForTests(
  pkg: PinnedPackage,
  what: string,
): Promise<{ installed: Installed; skip: string | undefined }> {
  const installed = await installPinned(pkg);
  const skip = installed.ok ? undefined : `${what} is not available: ${installed.reason}`;
  if (skip) console.warn(`${pkg.name}@${pkg.version} tests skipped: ${skip}`);
  return { installed, skip };
}
