import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { workspaceDigest } from '../src/packs-backend';
import { type FileContent, type FileWatch, watchFileContent } from '../src/workspace-watch';

let dir: string;
let file: string;
let watch: FileWatch | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'host-watch-'));
  file = join(dir, 'workspace.yaml');
  writeFileSync(file, 'version: 1\n');
});

afterEach(async () => {
  await watch?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a watch that queues each content it is told of. */
function follow(
  emptyGraceMs: number,
  settleMs = 100,
): { next: () => Promise<FileContent>; seen: FileContent[] } {
  const seen: FileContent[] = [];
  const waiters: ((c: FileContent) => void)[] = [];
  watch = watchFileContent(file, {
    seen: workspaceDigest(Buffer.from('version: 1\n')),
    emptyGraceMs,
    settleMs,
    onContent: async (content) => {
      seen.push(content);
      waiters.shift()?.(content);
    },
    onWatchError: (message) => {
      throw new Error(message);
    },
  });
  return { next: () => new Promise((resolve) => waiters.push(resolve)), seen };
}

describe('following a workspace file', () => {
  it('never hands on the empty moment between an editor truncating the file and writing it', async () => {
    // A grace no test run reaches: whatever the machine's load, the empty read is held back.
    const grace = 3_600_000;
    const watching = follow(grace, 1);
    const told = watching.next();
    // The watch holds an empty read back by setting the grace's timer: the write waits for that.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      truncateSync(file, 0);
      await until(
        () => timers.mock.calls.some(([, ms]) => ms === grace),
        'the watch to hold the empty read back',
      );
    } finally {
      timers.mockRestore();
    }
    writeFileSync(file, 'version: 1\nagents: {}\n');
    const content = await told;
    expect(content).toMatchObject({ ok: true, bytes: Buffer.from('version: 1\nagents: {}\n') });
    expect(watching.seen).toHaveLength(1);
  });

  it('hands on a file that stays empty once its grace has passed', async () => {
    const watching = follow(50);
    const told = watching.next();
    truncateSync(file, 0);
    const content = await told;
    expect(content).toMatchObject({ ok: true, digest: workspaceDigest(Buffer.alloc(0)) });
    expect(content.ok && content.bytes.length).toBe(0);
  });
});
