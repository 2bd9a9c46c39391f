// The lean reply of a call tool: what a client that forwards `structuredContent` hands its model.

import type { AnswerBodies } from '@harness/protocol';
import { describe, expect, it } from 'vitest';
import { callToolReply, RunCommandReply } from '../src/call-reply';
import type { AdmittedEntry, ExecutedOutcome, ToolOutcome } from '../src/outcome';

/** What the host answered: its kind and its body, as an admitted entry holds them. */
type Answered = Pick<AdmittedEntry, 'kind' | 'value'>;

/** A pack command's spawn, as a `ran` answer's body says it. */
const ran = (value: AnswerBodies['ran'] | undefined): Answered => ({ kind: 'ran', value });

/** An executed call of `command` whose host answered `answered` with `summary`. */
function executed(
  command: string,
  answered: Answered,
  summary: Partial<Extract<ExecutedOutcome['outcome'], { ok: boolean }>> = {},
  extra: Partial<ExecutedOutcome> = {},
): ExecutedOutcome {
  return {
    outputId: 'out-run-1',
    status: 'executed',
    command,
    outcome: {
      ok: true,
      id: command,
      code: 'ok',
      mayHaveLanded: false,
      completed: [],
      bodyBytes: 40,
      ...summary,
    },
    entry: { status: 'admitted', labelSource: 'query', referent: 'doc-1', ...answered } as AdmittedEntry,
    truncated: false,
    ...extra,
  };
}

/** The reply, checked against the schema every client is given as the tool's outputSchema. */
function reply(outcome: ToolOutcome): unknown {
  const r = callToolReply(outcome);
  expect(RunCommandReply.safeParse(r).success, JSON.stringify(r)).toBe(true);
  return r;
}

describe('the reply a model reads of a call', () => {
  it('is the exit status and the printed text of a pack command, and nothing of the record-keeping', () => {
    const out = executed(
      'git.diff',
      ran({ status: 'ok', output: 'diff --git a/x b/x\n+y\n', stderr: '', exitCode: 0, durationMs: 48 }),
    );
    expect(reply(out)).toEqual({ ok: true, exit: 0, output: 'diff --git a/x b/x\n+y' });
  });

  it('joins parsed lines into one text, which costs a model fewer tokens than a JSON array', () => {
    const out = executed(
      'git.status',
      ran({
        status: 'ok',
        output: ['## main', ' M a.txt', '?? new.txt'],
        stderr: 'warning: x\n',
        exitCode: 0,
        durationMs: 3,
      }),
    );
    expect(reply(out)).toEqual({
      ok: true,
      exit: 0,
      output: '## main\n M a.txt\n?? new.txt',
      stderr: 'warning: x',
    });
  });

  it('keeps output parsed as JSON as its value', () => {
    const out = executed(
      'npm.ls',
      ran({ status: 'ok', output: { name: 'a', deps: 2 }, stderr: '', exitCode: 0, durationMs: 3 }),
    );
    expect(reply(out)).toEqual({ ok: true, exit: 0, output: { name: 'a', deps: 2 } });
  });

  it('says why a command failed: its code and reason, what it printed, and that it timed out', () => {
    const out = executed(
      'make.test',
      ran({
        status: 'timed_out',
        message: 'killed after 30s',
        exitCode: null,
        signal: 'SIGKILL',
        stdout: 'ran 3\n',
        stderr: '',
        timedOut: true,
        outputExceeded: false,
        durationMs: 30_000,
      }),
      { ok: false, code: 'failed', reason: 'timed_out', mayHaveLanded: true },
    );
    expect(reply(out)).toEqual({
      ok: false,
      code: 'failed',
      reason: 'timed_out',
      output: 'ran 3',
      note: 'may have landed; timed out',
    });
  });

  it('gives a held call its approval id, expiry and the words that say how a person approves it', () => {
    const message =
      'a person must approve it (harness approvals approve apr-1), then the identical call runs once';
    const out = executed(
      'git.commit',
      {
        kind: 'held',
        value: {
          message,
          approval: { id: 'apr-1', expires_at: '2026-12-02T16:22:44.915Z', plan_hash: 'ab12' },
        },
      },
      { ok: false, code: 'approval_required', hostCode: 'refused', reason: 'approval_required' },
    );
    expect(reply(out)).toEqual({
      ok: false,
      code: 'approval_required',
      message,
      approval: 'apr-1',
      expires: '2026-12-02T16:22:44.915Z',
    });
  });

  it('says an answer was withheld by the run ceiling, and gives none of it', () => {
    const out: ExecutedOutcome = {
      outputId: 'out-run-2',
      status: 'executed',
      command: 'secrets.read',
      outcome: { withheld: true, mayHaveLanded: false },
      entry: { status: 'withheld', reasonCode: 'cfc_ceiling_exceeded' },
    };
    expect(reply(out)).toEqual({
      ok: false,
      code: 'withheld',
      note: "answer withheld (cfc_ceiling_exceeded): its label passes this run's ceiling",
    });
  });

  it('says output was left out to fit, and how large it was', () => {
    const out = executed('files.read', ran(undefined), { bodyBytes: 90000 }, { truncated: true });
    expect(reply(out)).toEqual({
      ok: true,
      note: 'output left out: 90000 bytes do not fit the output bound; ask for less',
    });
  });

  it('gives the signature after arguments the command refused', () => {
    const out = executed(
      'git.log',
      { kind: 'refused', value: { message: 'count: expected an integer' } },
      { ok: false, code: 'bad-args' },
      { signature: 'git.log(count?: int)', hint: 'Fix the arguments.' },
    );
    expect(reply(out)).toEqual({
      ok: false,
      code: 'bad-args',
      message: 'count: expected an integer',
      signature: 'git.log(count?: int)',
      hint: 'Fix the arguments.',
    });
  });

  it('names the nearest commands for an unknown one', () => {
    expect(
      reply({
        outputId: 'out-run-3',
        status: 'unknown_command',
        command: 'git.push',
        suggestions: ['git.diff', 'git.log'],
        hint: 'Call list_commands.',
      }),
    ).toEqual({
      ok: false,
      code: 'unknown_command',
      nearest: ['git.diff', 'git.log'],
      hint: 'Call list_commands.',
    });
  });

  it('says a call whose answer was lost may have landed', () => {
    expect(
      reply({
        outputId: 'out-run-4',
        status: 'failed_to_deliver',
        landed: 'unknown',
        code: 'answer_lost',
        command: 'git.commit',
        hint: 'Check before repeating it.',
      }),
    ).toEqual({
      ok: false,
      code: 'answer_lost',
      note: 'may have landed',
      hint: 'Check before repeating it.',
    });
  });

  it('names each call of a batch by its command, and says when answers were left out', () => {
    const batch: ToolOutcome = {
      outputId: 'out-run-5',
      status: 'batch',
      truncated: true,
      results: [
        executed('git.status', ran({ status: 'ok', output: [], stderr: '', exitCode: 0, durationMs: 1 })),
        {
          outputId: 'out-run-5',
          status: 'not_granted',
          landed: 'no',
          code: 'not_granted',
          command: 'git.commit',
          reasonCode: 'effect_not_read',
        },
      ],
    };
    expect(reply(batch)).toEqual({
      ok: false,
      truncated: true,
      results: [
        { ok: true, command: 'git.status', exit: 0 },
        { ok: false, command: 'git.commit', code: 'not_granted', reason: 'effect_not_read' },
      ],
    });
  });

  it('has no reply for an outcome no call tool returns', () => {
    expect(
      callToolReply({
        outputId: 'o',
        status: 'ok',
        notice: '',
        entries: [],
        hidden: 0,
        omitted: 0,
        compacted: 0,
      }),
    ).toBeUndefined();
  });
});
