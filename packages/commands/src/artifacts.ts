// Host-side evidence of Loom tool calls (canonical references, verified receipts), kept per run
// and never shown to the model.
import type { RunState } from './run';

/** Host-side evidence of a tool call, kept on the run and never shown to the model. */
export interface ToolArtifact {
  tool: string;
  outputId: string;
  /** The run id of the turn that made the call. */
  runId: string;
  data: Record<string, unknown>;
}

// Keyed weakly so a run's evidence goes when the run does, with no field on RunState for it.
const artifactsByRun = new WeakMap<RunState, ToolArtifact[]>();

/** The host-side artifacts recorded for a run (canonical references, verified receipts). */
export function runArtifacts(run: RunState): readonly ToolArtifact[] {
  return artifactsByRun.get(run) ?? [];
}

/** Records one tool call's evidence on its run. */
export function recordArtifact(run: RunState, artifact: ToolArtifact): void {
  const list = artifactsByRun.get(run) ?? [];
  list.push(artifact);
  artifactsByRun.set(run, list);
}
