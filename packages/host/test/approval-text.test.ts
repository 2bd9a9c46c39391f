// How an approval with a display line and a preview reads in a terminal (`harness approvals list`
// and `show`, `loom approvals`): the runs line in place of the argv in a listing, the preview's first
// lines under it with a pointer to the rest, a failed preview as its one line, and output that
// cannot repaint the terminal.
import type { ApprovalRecord } from '@harness/store';
import { describe, expect, it } from 'vitest';
import { approvalBlock, approvalLine, approvalsListing } from '../src/approvals/preview';

const record = (over: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  id: 'apr-1',
  key: 'k',
  command: 'git.commit',
  agent: 'coder',
  run: 'run-1',
  action: 'command:call:git.commit',
  reason: 'cautious write',
  arg_names: ['message'],
  args: { message: 'Fix it' },
  argv: ['sh', '-c', 'set -eu', 'git', 'commit', '--message=Fix it'],
  tier: 'cautious',
  display: 'git commit --message "Fix it"',
  preview: null,
  plan_hash: null,
  plan: null,
  session: null,
  decided_via: null,
  assertion: null,
  status: 'pending',
  created_at: '2026-12-07T14:00:00.000Z',
  expires_at: '2026-12-07T15:00:00.000Z',
  decided_at: null,
  decided_by: null,
  consumed_at: null,
  ...over,
});

const lines = Array.from({ length: 14 }, (_, i) => `line ${i + 1}`).join('\n');
const now = new Date('2026-12-07T14:00:30.000Z');

describe('an approval with a display line and a preview, in a terminal', () => {
  it('lists the runs line instead of the argv and the first 10 preview lines, saying how to see the rest', () => {
    const text = approvalsListing(
      [record({ preview: { command: 'git.staged_diff', ok: true, text: lines, truncated: false } })],
      false,
      now,
    );
    expect(text).toBe(
      'apr-1  pending  git.commit  tier cautious  agent coder  run run-1  asked 30s ago  expires 2026-12-07T15:00:00.000Z\n' +
        '  runs  git commit --message "Fix it"\n' +
        '  args  message="Fix it"\n' +
        '  preview git.staged_diff\n' +
        Array.from({ length: 10 }, (_, i) => `    | line ${i + 1}\n`).join('') +
        '    …(+4 lines: harness approvals show apr-1)\n',
    );
  });

  it('shows the argv too, and every preview line, when shown whole', () => {
    const text = approvalBlock(
      record({ preview: { command: 'git.staged_diff', ok: true, text: lines, truncated: true } }),
      now,
      'full',
    );
    expect(text).toContain('  argv  sh -c "set -eu" git commit "--message=Fix it"\n');
    expect(text).toContain('    | line 14\n    …(cut at 40 lines / 4 KiB)\n');
  });

  it('shows a failed preview as its one line, and escapes what would repaint the terminal', () => {
    const failed = approvalBlock(
      record({
        preview: { command: 'git.outgoing', ok: false, text: 'preview timed out after 5s', truncated: false },
      }),
      now,
      'list',
    );
    expect(failed).toContain('  preview git.outgoing: preview timed out after 5s\n');
    const hostile = approvalBlock(
      record({
        preview: { command: 'git.staged_diff', ok: true, text: 'a\u001b[2Jb\u202ec', truncated: false },
      }),
      now,
      'list',
    );
    expect(hostile).toContain('    | a\\u001b[2Jb\\u202ec\n');
  });

  it('shows the runs line in the one-line form, and the argv for a command without a display line', () => {
    expect(approvalLine(record())).toContain('  runs: git commit --message "Fix it"  ');
    expect(approvalLine(record({ display: null }))).toContain('  argv: sh -c "set -eu" git commit');
  });
});
