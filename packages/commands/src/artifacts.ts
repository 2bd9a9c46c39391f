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

/**
 * How many of its latest artifacts a run keeps: a run can live for days, and each Loom tool call
 * records one, so the oldest are dropped past this bound.
 */
export const ARTIFACTS_KEPT = 256;

// Keyed weakly so a run's evidence goes when the run does, with no field on RunState for it.
const artifactsByRun = new WeakMap<RunState, ToolArtifact[]>();

/**
 * The host-side artifacts recorded for a run (canonical references, verified receipts): the latest
 * {@link ARTIFACTS_KEPT}, oldest first.
 */
export function runArtifacts(run: RunState): readonly ToolArtifact[] {
  return artifactsByRun.get(run) ?? [];
}

/** Records one tool call's evidence on its run, dropping the oldest past {@link ARTIFACTS_KEPT}. */
export function recordArtifact(run: RunState, artifact: ToolArtifact): void {
  const list = artifactsByRun.get(run) ?? [];
  list.push(artifact);
  if (list.length > ARTIFACTS_KEPT) list.splice(0, list.length - ARTIFACTS_KEPT);
  artifactsByRun.set(run, list);
}
