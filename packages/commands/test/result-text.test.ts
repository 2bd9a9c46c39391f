// The text a model reads for a result, and which results an MCP client sees as errors.
import { describe, expect, it } from 'vitest';
import { callToolReply } from '../src/call-reply';
import type { ToolOutcome } from '../src/outcome';
import { isErrorResult, resultText } from '../src/result-text';
import { jsonBytes } from '../src/shape';

/** A hand-written result holding only the fields a case reads. */
const loose = (value: Record<string, unknown>) => value as unknown as ToolOutcome;

/** An executed call whose host answered `value`, of `kind` (a pack command's spawn unless said). */
const executed = (
  outcome: Record<string, unknown>,
  value: unknown,
  extra: Record<string, unknown> = {},
  kind = 'ran',
) =>
  ({
    outputId: 'out-1',
    status: 'executed',
    command: 'repo.log',
    outcome: {
      ok: true,
      id: 'repo.log',
      code: 'ok',
      mayHaveLanded: false,
      completed: [],
      bodyBytes: jsonBytes(value),
      ...outcome,
    },
    entry: { status: 'admitted', labelSource: 'query', referent: 'doc-1', kind, value },
    truncated: false,
    ...extra,
  }) as ToolOutcome;

const ok = executed(
  {},
  {
    status: 'ok',
    output: 'b0466cc Test titles\n16c70e3 One constructor\n',
    stderr: '',
    exitCode: 0,
    durationMs: 9,
  },
);
const grepNothing = executed(
  { ok: false, code: 'failed', reason: 'exit_nonzero' },
  {
    status: 'exit_nonzero',
    message: 'repo.grep exited with code 1 (no stderr)',
    exitCode: 1,
    signal: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    outputExceeded: false,
    durationMs: 5,
  },
  { command: 'repo.grep' },
);

describe('resultText', () => {
  it('leads with the command output, then one status line', () => {
    expect(resultText(ok)).toBe('b0466cc Test titles\n16c70e3 One constructor\n[repo.log: ok, exit 0]');
  });

  it('says a non-zero exit and what the command said, once', () => {
    expect(resultText(grepNothing)).toBe(
      'repo.grep exited with code 1 (no stderr)\n[repo.grep: failed (exit_nonzero), exit 1]',
    );
  });

  it('names a failure the pack gives the exit code in words, with the report it printed, as an error', () => {
    const failing = executed(
      { ok: false, code: 'failed', reason: 'tests_failed', mayHaveLanded: true },
      {
        status: 'tests_failed',
        message: 'node.test exited with code 1: tests failed',
        exitCode: 1,
        signal: null,
        stdout: 'ok adds\nnot ok multiplies\n',
        stderr: '',
        timedOut: false,
        outputExceeded: false,
        durationMs: 5,
      },
      { command: 'node.test' },
    );
    expect(resultText(failing)).toBe('ok adds\nnot ok multiplies\n[node.test: tests failed, exit 1]');
    expect(isErrorResult(failing)).toBe(true);
    expect(callToolReply(failing)).toEqual({
      ok: false,
      code: 'failed',
      reason: 'tests_failed',
      exit: 1,
      output: 'ok adds\nnot ok multiplies',
    });
  });

  it('shows stderr under its own heading beside the output', () => {
    const r = executed(
      { ok: false, code: 'failed', reason: 'exit_nonzero' },
      {
        status: 'exit_nonzero',
        message: 'x',
        exitCode: 2,
        signal: null,
        stdout: 'partial',
        stderr: 'fatal: bad revision',
        timedOut: true,
        outputExceeded: false,
        durationMs: 5,
      },
    );
    expect(resultText(r)).toBe(
      'partial\nstderr:\nfatal: bad revision\n[repo.log: failed (exit_nonzero), exit 2, timed out]',
    );
  });

  it('shows parsed lines one per line, as they were printed and as the reply has them', () => {
    const r = executed(
      {},
      {
        status: 'ok',
        output: ['; rm -rf /', 'say "hi"', ''],
        stderr: '',
        exitCode: 0,
        durationMs: 1,
      },
      { command: 'echo.argv' },
    );
    expect(resultText(r)).toBe('; rm -rf /\nsay "hi"\n\n[echo.argv: ok, exit 0]');
    expect(callToolReply(r)).toMatchObject({ output: '; rm -rf /\nsay "hi"\n' });
  });

  it("names what else a call's status says in one order, in its text and in its reply alike", () => {
    const r = executed(
      { ok: false, code: 'failed', reason: 'timeout', mayHaveLanded: true },
      {
        status: 'timed_out',
        message: 'deploy.run ran past its timeout',
        exitCode: null,
        signal: 'SIGKILL',
        stdout: 'half',
        stderr: '',
        timedOut: true,
        outputExceeded: false,
        durationMs: 30_000,
      },
      { command: 'deploy.run' },
    );
    expect(resultText(r)).toBe('half\n[deploy.run: failed (timeout), may have landed, timed out]');
    expect(callToolReply(r)).toMatchObject({ note: 'may have landed; timed out' });
  });

  it('keeps parsed JSON output as its JSON', () => {
    const r = executed(
      {},
      { status: 'ok', output: { branch: 'main', ahead: 2 }, stderr: '', exitCode: 0, durationMs: 1 },
      { command: 'git.status' },
    );
    expect(resultText(r)).toBe('{"branch":"main","ahead":2}\n[git.status: ok, exit 0]');
  });

  it('says an answer was left out to fit the bound, and how big it was', () => {
    const r = executed({ bodyBytes: 40_000 }, undefined, {
      truncated: true,
      entry: { status: 'admitted', labelSource: 'query', referent: 'doc-1', kind: 'ran' },
    });
    expect(resultText(r)).toBe(
      '[repo.log: ok, output left out: 40000 bytes do not fit the output bound; ask for less]',
    );
  });

  it('says an answer was cut to fit, with its whole size', () => {
    const r = executed(
      { bodyBytes: 108_000 },
      { status: 'ok', output: '1\n2\n3…', stderr: '', exitCode: 0, durationMs: 3 },
    );
    expect(resultText(r)).toBe(
      '1\n2\n3…\n[repo.log: ok, exit 0, answer cut to fit (… marks each cut; 108000 bytes in all)]',
    );
  });

  it('says an answer was withheld by the ceiling', () => {
    const r = executed({}, undefined, { entry: { status: 'withheld', reasonCode: 'ceiling_exceeded' } });
    expect(resultText(r)).toBe(
      "[repo.log: ok, answer withheld (ceiling_exceeded): its label passes this run's ceiling]",
    );
  });

  it('gives a refusal its code, the host message and the hint', () => {
    const r = executed(
      { ok: false, code: 'not_granted', hostCode: 'refused', reason: 'readonly_tier' },
      { message: 'pack "repo" is readonly and repo.tag declares effects write' },
      { command: 'repo.tag', hint: 'Do not retry it.' },
      'refused',
    );
    expect(resultText(r)).toBe(
      'pack "repo" is readonly and repo.tag declares effects write\n[repo.tag: not_granted (readonly_tier) Do not retry it.]',
    );
  });

  it('shows the approval the host asks for, and when it expires', () => {
    const r = executed(
      { ok: false, code: 'approval_required', hostCode: 'refused', reason: 'approval_required' },
      {
        message:
          'strict: a person must approve it (harness approvals approve ap-1), then the identical call runs once',
        approval: { id: 'ap-1', expires_at: '2026-12-01T06:00:00.000Z', plan_hash: null },
      },
      { command: 'notes.append' },
      'held',
    );
    expect(resultText(r)).toBe(
      'strict: a person must approve it (harness approvals approve ap-1), then the identical call runs once (expires 2026-12-01T06:00:00.000Z)\n[notes.append: approval_required]',
    );
  });

  it('reads a batch as one block per call, headed by its status line', () => {
    const batch = {
      outputId: 'out-1',
      status: 'batch',
      results: [
        ok,
        grepNothing,
        {
          outputId: 'out-3',
          status: 'unknown_command',
          command: 'nope.x',
          suggestions: ['repo.log'],
          hint: 'Call list_commands.',
        },
      ],
      truncated: false,
    } as ToolOutcome;
    expect(resultText(batch)).toBe(
      [
        '[1/3 repo.log: ok, exit 0]',
        'b0466cc Test titles\n16c70e3 One constructor',
        '[2/3 repo.grep: failed (exit_nonzero), exit 1]',
        'repo.grep exited with code 1 (no stderr)',
        '[3/3 nope.x: unknown_command; nearest: repo.log. Call list_commands.]',
      ].join('\n'),
    );
  });

  it('reads any other result as its JSON', () => {
    const listing = loose({ outputId: 'out-1', status: 'ok', entries: [] });
    expect(resultText(listing)).toBe(JSON.stringify(listing));
  });
});

describe('isErrorResult', () => {
  it('is false for a success: a listing, a command that exited 0, a batch of successes', () => {
    expect(isErrorResult(loose({ status: 'ok' }))).toBe(false);
    expect(isErrorResult(ok)).toBe(false);
    expect(isErrorResult(loose({ status: 'batch', results: [ok, ok] }))).toBe(false);
  });

  it('is true for bad arguments, an unknown command, not granted, a non-zero exit, a timeout, a batch with one failure', () => {
    expect(isErrorResult(loose({ status: 'failed_to_deliver', landed: 'no', code: 'invalid_input' }))).toBe(
      true,
    );
    expect(isErrorResult(loose({ status: 'unknown_command', command: 'x' }))).toBe(true);
    expect(isErrorResult(loose({ status: 'not_granted', landed: 'no' }))).toBe(true);
    expect(isErrorResult(grepNothing)).toBe(true);
    expect(
      isErrorResult(executed({ ok: false, code: 'failed', reason: 'timed_out' }, { timedOut: true })),
    ).toBe(true);
    expect(
      isErrorResult(
        executed({ ok: false, code: 'bad-args' }, { message: 'the arguments do not fit' }, {}, 'refused'),
      ),
    ).toBe(true);
    expect(isErrorResult(loose({ status: 'batch', results: [ok, grepNothing] }))).toBe(true);
  });
});
