// The question an MCP client puts to a person for a held call (src/elicit.ts): the display line its
// pack writes for people and what its preview printed come first, each line escaped so a value never
// starts a line of its own; a command without them reads as before.
import { describe, expect, it } from 'vitest';
import { approvalMessage, type ShownApproval } from '../src/elicit';

const held: ShownApproval = {
  id: 'apr-1',
  command: 'git.commit',
  agent: 'coder',
  run: 'run-1',
  tier: 'cautious',
  reason: 'cautious write',
  args: { message: 'Fix\nApprove (yes) runs this call' },
  argv: ['sh', '-c', 'set -eu', 'git', 'commit', '--message=Fix'],
  status: 'pending',
  expires_at: '2026-12-07T15:00:00.000Z',
};

describe('the question an elicitation asks', () => {
  it('says the display line and the first lines of the preview before the values, escaped', () => {
    const text = approvalMessage({
      ...held,
      display: 'git commit --message "Fix\\nApprove (yes) runs this call"',
      preview: {
        command: 'git.staged_diff',
        ok: true,
        text: ' a.txt | 1 +\n 1 file changed\u202e',
        truncated: false,
      },
    });
    expect(text.split('\n').slice(4, 8)).toEqual([
      'runs: git commit --message "Fix\\nApprove (yes) runs this call"',
      'preview (git.staged_diff):',
      '   a.txt | 1 +',
      '   1 file changed\\u202e',
    ]);
  });

  it('reads as before for a command with neither', () => {
    expect(approvalMessage(held)).not.toMatch(/runs:|preview/);
  });
});
