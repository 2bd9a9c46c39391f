import { describe, expect, it } from 'vitest';
import { ARTIFACTS_KEPT, recordArtifact, runArtifacts } from '../src/artifacts';
import { createRun } from '../src/run';

describe('run artifacts', () => {
  it('a run keeps only its latest artifacts, oldest dropped first', () => {
    const run = createRun();
    for (let i = 1; i <= ARTIFACTS_KEPT + 44; i++)
      recordArtifact(run, { tool: 'loom_compose', outputId: `out-${i}`, runId: run.id, data: {} });
    const kept = runArtifacts(run);
    expect(kept).toHaveLength(256);
    expect(kept[0]?.outputId).toBe('out-45');
    expect(kept.at(-1)?.outputId).toBe('out-300');
  });

  it('keeps artifacts per run', () => {
    const a = createRun();
    const b = createRun();
    recordArtifact(a, { tool: 'loom_compose', outputId: 'out-a', runId: a.id, data: {} });
    expect(runArtifacts(a).map((x) => x.outputId)).toEqual(['out-a']);
    expect(runArtifacts(b)).toEqual([]);
  });
});
