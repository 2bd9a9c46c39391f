// The framework-neutral tool shape every adapter consumes.
import type { RunProgress } from '@harness/protocol';
import type { z } from 'zod';
import type { SendOutcome } from './host/types';
import type { ToolOutcome } from './outcome';
import type { RunState } from './run';

/** The prompt slot the run's task is bound to; `undefined` when it is bound to none. */
export type PromptSlot = 'direct-command' | 'context' | 'quote';

/** A progress report a long tool call sends (MCP progress notifications, say). */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
  /** A single call's time in flight at its host, in ms, where the host reports it. */
  elapsedMs?: number;
  /** Bytes of output the call's command has written so far, where the host reports it. */
  outputBytes?: number;
  /**
   * The approval a call held for a person's decision waits for (its host waits: a pack's
   * `approval_wait`): its id, the command line that approves it, and when the wait ends unanswered.
   */
  approval?: { id: string; approve: string; waitsUntil: string };
}

/**
 * What an observer hears of one call sent to the host (see {@link ToolContext.onHostCall}): the
 * host's progress reports while it runs, then how it came back. Both are told synchronously; a
 * throw is the observer's own bug and is not caught.
 */
export interface HostCallObserver {
  /** A progress report of the host: time in flight, output so far, the approval the call waits for. */
  progress(progress: RunProgress): void;
  /** How the call came back: the host's answer, or why none came. */
  settled(outcome: SendOutcome): void;
  /**
   * The answer measured against the run's ceiling (after `settled`, for an answer only): whether it
   * was admitted or withheld, and when the measurement began and ended (ms since the epoch).
   */
  measured?(measurement: { status: string; reasonCode?: string; startTime: number; endTime: number }): void;
}

/** What an embedder passes with every tool call. None of it comes from the model. */
export interface ToolContext {
  /** The run this call belongs to (its catalog, ceiling, policy mode, observations, referents). */
  run: RunState;
  /** The prompt slot the task that asked for this call is bound to; absent means unbound. */
  slot?: PromptSlot | undefined;
  /** Cancels calls not yet sent; a call already sent settles (it is never rolled back). */
  signal?: AbortSignal | undefined;
  /**
   * When true, `signal` also stops calls already sent: the host is asked to cancel them (a running
   * pack command's process group is killed; a built-in runs to its end, a commit is never rolled
   * back), and each still settles with the host's answer. The MCP adapter sets it: an MCP client's
   * cancellation names that one call. Default false: a turn's cancellation lets sent calls finish.
   */
  stopStarted?: boolean | undefined;
  /** The host job id for this invocation; routed by the configuration's `jobIdEnvVar`. */
  jobId?: string | undefined;
  /**
   * The client session this call belongs to (one MCP session of `harness serve`), sent to the host:
   * an approval a call asks for is bound to it, so another session of the same agent making the
   * identical call asks a person anew and never consumes it. An unguessable id per session; absent:
   * the agent's calls share their approvals (`harness call`, whose approval is consumed by the next
   * identical `harness call`).
   */
  session?: string | undefined;
  /**
   * Receives progress: as the calls of a batch settle, and while a single call runs, its host's
   * reports (time in flight, output so far) where the host gives them.
   */
  onProgress?: ((progress: ToolProgress) => void) | undefined;
  /**
   * Called as each command call of this tool call is sent to the host (after the catalog and
   * read-only checks, so a call refused before sending is never told), with the command's id; the
   * observer it returns hears that call's progress and its outcome. Giving it asks the host for
   * progress reports. For tracing: `harness serve` derives its OpenTelemetry child spans from it.
   * `args` are the call's argument values, given only when the host's row says the command's pack
   * lets telemetry export them (`telemetry.include_args`); otherwise the observer never sees them.
   */
  onHostCall?:
    | ((command: string, sent: { args?: Readonly<Record<string, unknown>> }) => HostCallObserver)
    | undefined;
}

/** MCP-style annotations that are true for the tool they describe. */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A JSON Schema object (draft 2020-12 subset) describing a tool's input. */
export type JsonSchema = Record<string, unknown>;

/**
 * A tool's structured result.
 * @deprecated Use {@link ToolOutcome}, the typed union every tool returns; this alias goes in the next major.
 */
export type ToolResult = ToolOutcome;

/**
 * A framework-neutral tool definition. Adapters (`@harness/commands/mcp`, `toFunctionTools`) turn
 * it into what a framework registers; `execute` never throws for anything the model or host can
 * cause — those come back as data. `In` is the input a model writes (inferred from `input`), `Out`
 * the tool's own outcome union; a list of tools of several kinds is a `HarnessTool[]`.
 */
export interface HarnessTool<In = unknown, Out extends ToolOutcome = ToolOutcome> {
  readonly name: string;
  readonly description: string;
  /**
   * The input as a model writes it: `inputSchema` is generated from it and `In` inferred from it.
   * `execute` reads its input with it once (`run_command`: with the schemas it is made of, a batch's
   * calls each on its own), after the run's policy has allowed the call; a problem comes back as
   * `invalid_input` with what to fix, never a throw.
   */
  readonly input: z.ZodType<unknown, In>;
  /**
   * The JSON Schema of `input` (MCP's `inputSchema`, a function tool's `parameters`): each field's
   * type and purpose and the fields a call needs, without the bounds the tool enforces itself.
   */
  readonly inputSchema: JsonSchema;
  /** The effect class policy judges the tool by. */
  readonly effect: 'read' | 'write';
  readonly annotations: ToolAnnotations;
  /**
   * Runs one call. `input` is typed for callers that build it; whatever a model sent is read
   * afresh, so an untyped value (`HarnessTool<unknown>`) is answered the same way.
   */
  execute(input: In, context: ToolContext): Promise<Out>;
}
