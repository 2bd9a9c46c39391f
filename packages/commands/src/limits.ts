// The bounds of the tools' contract, in one place.
import { MAX_COMPOSE_COMPONENTS, MAX_CONTEXT_RECEIPTS } from '@harness/protocol';

/**
 * The seed's bounds (seed 000 "run_command", "list_commands"; seed 001 "Tools and authority").
 * They are constants of the contract, not tuning knobs: a model is told them in tool descriptions.
 */
export const LIMITS = {
  /** Calls in one `run_command` / `run_read_command` batch. */
  maxBatchCalls: 16,
  /** Calls in flight to the host at once, per batch. */
  maxInFlight: 4,
  /**
   * Nesting of arrays and objects in one tool input. Deeper input is refused before it is parsed or
   * walked: a few KB of brackets would otherwise exhaust the stack of anything recursive.
   */
  maxInputDepth: 64,
  /** Bytes of one call's `args`, serialized as JSON (UTF-8). */
  maxArgsBytes: 16 * 1024,
  /** Names in one `list_commands` `detail`. */
  maxDetail: 16,
  /** Operation ids kept in an executed outcome's `completed`. */
  maxCompleted: 32,
  /** Characters kept of each text in an outcome summary (an identifier's length). */
  maxIdentifier: 128,
  /** Manifest rows read into a catalog; rows past it count as `omitted`. */
  catalogRows: 10_000,
  /** Serialized bytes of a `list_commands` result before entries lose their description. */
  listBound: 48 * 1024,
  /** Serialized bytes of one tool result (a lone call, or a whole batch). */
  outputBound: 64 * 1024,
  /** Characters kept of each string inside an admitted answer's `entry`. */
  entryString: 8 * 1024,
  /** Suggestions in an `unknown_command` result. */
  maxSuggestions: 3,
  /** Components in one `loom_compose` (the protocol's `MAX_COMPOSE_COMPONENTS`). */
  maxComponents: MAX_COMPOSE_COMPONENTS,
  /** Historical receipts `loom_authoring_context` admits (the protocol's `MAX_CONTEXT_RECEIPTS`). */
  maxReceipts: MAX_CONTEXT_RECEIPTS,
} as const;

/** The shape of {@link LIMITS}. */
export type Limits = typeof LIMITS;
