// One run's state, shared by every tool call of the run.
import {
  type Authorization,
  type Ceiling,
  type Label,
  ObservationLog,
  POLICY_MODES,
  type PolicyMode,
  type ReferentBounds,
  ReferentStore,
  readCeiling,
} from '@harness/ifc';
import type { Catalog } from './catalog';
import { CommandsError } from './errors';

/**
 * One run's state, shared by every tool call of the run: the held catalog, the observation ceiling,
 * the policy mode, the observation log and the held referents. Create one per run with
 * {@link createRun}; never share one between runs.
 */
export interface RunState {
  /** An identifier of the run, used in output ids. */
  readonly id: string;
  /** How the run's prompt-slot policy is enforced. */
  readonly mode: PolicyMode;
  /** The run's observation ceiling (`undefined`: none). */
  readonly ceiling: Ceiling;
  /** The run's model-context label and the observations that raised it. */
  readonly observations: ObservationLog;
  /** Admitted answers held as documents. */
  readonly referents: ReferentStore;
  /** The agent actor named in referent provenance (the broker stamps the real attribution). */
  readonly actor: string;
  /**
   * The run's latest policy decisions (at most {@link POLICY_TRACE_KEPT}), oldest first: the tool and
   * `@harness/ifc`'s decision and reason.
   */
  readonly policyTrace: PolicyDecision[];
  /** The host listing held for the run; `undefined` until the first successful read. */
  catalog: Catalog | undefined;
  /** Mints the next output id of the run (`out-<run>-<n>`), in call order. */
  mintOutputId(): string;
}

/** How many of its latest policy decisions a run keeps in its trace. */
export const POLICY_TRACE_KEPT = 256;

/** One entry of a run's policy trace. */
export type PolicyDecision = { tool: string } & Authorization;

/** Options of {@link createRun}. */
export interface CreateRunOptions {
  id?: string;
  /** Default `enforce-explicit`: writes need a `direct-command` task. */
  mode?: PolicyMode;
  /** The observation ceiling, as `@harness/ifc` `readCeiling` reads it; default none. */
  ceiling?: unknown;
  /** The run's initial model-context label; default public. */
  initialLabel?: Label;
  /** The agent actor for provenance; default `agent:broker` (the broker stamps the real one). */
  actor?: string;
  /** Bounds of the run's referent store; default `@harness/ifc` `REFERENT_BOUNDS` (1000 documents, 16 MiB). */
  referents?: ReferentBounds;
}

let runCounter = 0;

/**
 * Creates a run's state. An unreadable ceiling or an unknown mode throws `CommandsError`
 * `invalid_option`: a run must never proceed unbounded because its ceiling could not be read.
 */
export function createRun(options: CreateRunOptions = {}): RunState {
  const mode = options.mode ?? 'enforce-explicit';
  if (!(POLICY_MODES as readonly string[]).includes(mode)) {
    throw new CommandsError(
      'invalid_option',
      `createRun: mode must be one of ${POLICY_MODES.join(', ')} (found ${String(mode)})`,
    );
  }
  const ceiling = readCeiling(options.ceiling);
  if (!ceiling.ok) {
    throw new CommandsError(
      'invalid_option',
      'createRun: the ceiling could not be read; expected undefined (none) or a list of label clauses',
    );
  }
  const id = options.id ?? `run${++runCounter}`;
  let next = 0;
  return {
    id,
    mode,
    ceiling: ceiling.value,
    observations: new ObservationLog(options.initialLabel ? { initial: options.initialLabel } : {}),
    referents: new ReferentStore(options.referents),
    actor: options.actor ?? 'agent:broker',
    policyTrace: [],
    catalog: undefined,
    mintOutputId: () => `out-${id}-${++next}`,
  };
}
