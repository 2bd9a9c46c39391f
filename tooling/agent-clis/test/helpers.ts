// Expectations every client's session meets, whatever the client hands its model: the commit the
// person approved, the audit, the git.status and git.diff replies, the record-keeping kept from the
// model, and the printed token table; and the install a test file needs.
import { expect, it } from 'vitest';
import {
  CHANGED_FILE,
  CHANGED_LINES,
  COMMIT_MESSAGE,
  formatTokenTable,
  gitIn,
  type HandedResult,
  handedJson,
  type Installed,
  installPinned,
  ORIGINAL_LINES,
  type PinnedPackage,
  PROJECT_COMMITS,
  type SessionResult,
  STAGED_FILE,
  STEP,
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
 * Expects `json` (what the model was handed for an executed call) to be a call tool's lean reply: the
 * exit status and the output, none of the record-keeping (output ids, referents, byte counts), and not
 * serve's text content (the output then a status line).
 */
export function expectLeanReply(json: string, command: string): void {
  const handed = handedJson(json);
  expect(handed?.kind, `${command}: ${json.slice(0, 200)}`).toBe('reply');
  expect(json).not.toMatch(/outputId|referent|labelSource|bodyBytes/);
  expect(json).not.toContain(`[${command}: ok, exit 0]`);
}

/** git.status's reply: porcelain v1, `untracked` being the `?? …` lines of what the client's init added. */
function statusReply(untracked: readonly string[]): unknown {
  return {
    ok: true,
    exit: 0,
    output: ['## main', `A  ${STAGED_FILE}`, ` M ${CHANGED_FILE}`, ...untracked].join('\n'),
  };
}

/** Expects `json` to be the git.diff reply, the 200-line patch as one string. */
function expectDiffReply(json: string): void {
  const reply = JSON.parse(json) as { output: string };
  const patch = reply.output.replace(/^index [0-9a-f]+\.\.[0-9a-f]+ 100644$/m, 'index …');
  expect(patch).toBe(
    [
      `diff --git a/${CHANGED_FILE} b/${CHANGED_FILE}`,
      'index …',
      `--- a/${CHANGED_FILE}`,
      `+++ b/${CHANGED_FILE}`,
      '@@ -1,100 +1,100 @@',
      ...ORIGINAL_LINES.map((l) => `-${l}`),
      ...CHANGED_LINES.map((l) => `+${l}`),
    ].join('\n'),
  );
  expect(Object.keys(reply).sort()).toEqual(['exit', 'ok', 'output']);
}

/**
 * Expects the approval to have succeeded, the repository to hold the commit, and `json` (what the model
 * was handed for the approved commit) to be its reply: what git commit printed.
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
  expect(JSON.parse(json)).toEqual({
    ok: true,
    exit: 0,
    output: expect.stringMatching(new RegExp(`^\\[main [0-9a-f]+\\] ${COMMIT_MESSAGE}\n 1 file changed`)),
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
  /** The JSON the model was handed for a step (after any header the client adds). */
  json: (step: number) => string;
  /** The `git status` porcelain v1 lines of what the client's `harness init` added to the project. */
  untracked: readonly string[];
  /** The token rows of the session. */
  tokenRows: () => Row[];
  /** The client's own expectations of its token rows. */
  expectTokenRows: (rows: Row[]) => void;
}

/**
 * The tests every client's whole session passes, whatever it hands its model: git.status and git.diff
 * as their lean replies' JSON, the commit the person approved, the audit, and the token table it prints.
 */
export function sessionTests<Row extends TokenRow>(of: SessionTestsOf<Row>): void {
  it('hands the model git.status as its lean reply: exit 0 and the porcelain v1 lines as one text', () => {
    expect(JSON.parse(of.json(STEP.status))).toEqual(statusReply(of.untracked));
  });

  it('hands the model git.diff as its lean reply, the 200-line patch as one escaped string', () => {
    expectDiffReply(of.json(STEP.diff));
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

/** The rows held to at most 0.6 of what the client handed before the lean reply. */
const HELD_TO_RATIO = [
  'git.status',
  'refusal: git.push, not granted',
  'approval pending: git.commit',
  'git.commit, approved',
];
/** The diff's own patch costs more than 0.6 of the old form: it is held to its floor instead. */
const DIFF = 'git.diff, 200 changed lines';
/** What a reply (and Codex's header) may add to the patch it carries. */
const DIFF_ENVELOPE_TOKENS = 30;

/** Expects each row to meet its token target: 0.6 of the baseline, or for the diff its floor and a small envelope. */
export function expectTokenTargets(rows: readonly TokenRow[]): void {
  for (const r of rows) {
    if (HELD_TO_RATIO.includes(r.kind)) expect(r.ratio, r.kind).toBeLessThanOrEqual(0.6);
    if (r.kind === DIFF) {
      expect(r.outputTokens, r.kind).toBeGreaterThan(0.6 * r.baselineTokens);
      expect(r.handedTokens, r.kind).toBeLessThanOrEqual(r.outputTokens + DIFF_ENVELOPE_TOKENS);
    }
  }
}
