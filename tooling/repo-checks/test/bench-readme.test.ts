// bench/README.md is what bench/results/*.json say: regenerate it with `pnpm bench-readme`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { benchReadme, targetText } from '../src/bench-readme';

describe('bench/README.md', () => {
  it('holds exactly what the committed results say (pnpm bench-readme writes it)', () => {
    const committed = readFileSync(join(repoRoot, 'bench', 'README.md'), 'utf8');
    expect(committed).toBe(benchReadme(join(repoRoot, 'bench', 'results')));
  });

  it('puts each absolute median, the ratio, the floor, the target, the load and the CPU count in one row', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-readme-'));
    try {
      writeFileSync(
        join(dir, 'x.json'),
        JSON.stringify({
          name: 'x',
          measuredAt: '2026-12-07T10:00:00.000Z',
          unit: 'ms per call',
          machine: { cpus: 2, loadAverage1m: 1.234 },
          subject: { label: 'a | b', median: 2.34567 },
          anchor: { label: 'c', median: 0.5 },
          ratio: 4.69134,
          ratioToFloor: 1.2,
          target: { ratioToFloorAtMost: 1.5 },
          pass: true,
        }),
      );
      const lines = benchReadme(dir).trimEnd().split('\n');
      expect(lines.at(-1)).toBe(
        '| `x` | a \\| b vs c (ms per call) | 2.35 | 0.5 | 4.69 | 1.2 | ratio to floor ≤ 1.5 | yes | 2 | 1.23 | 2026-12-07 |',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads every kind of target in words', () => {
    expect(targetText({ ratioAtLeast: 0.5 })).toBe('ratio ≥ 0.5');
    expect(targetText({ subjectMedianMsAtMost: 300, rssGrowthMiBAtMost: 10 })).toBe(
      'subject median ms ≤ 300; rss growth MiB ≤ 10',
    );
    expect(targetText(1.5)).toBe('≤ 1.5');
    expect(targetText(undefined)).toBe('—');
  });
});
