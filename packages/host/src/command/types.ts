// The types the command layer shares with its embedders and with the pack backend.
import type { CommandAnswer, ManifestRow, RunProgress } from '@harness/protocol';
import type { Store } from '@harness/store';
import type { ApprovalNotices } from '../notify/notifier';

/** The approval a call held for a person's decision waits for, as its progress reports name it. */
export type ApprovalWaiting = NonNullable<RunProgress['approval']>;

/** What a pack backend needs to know about the caller of one pack command. */
export interface PackCallContext {
  agent: string;
  actor: string;
  run: string;
  store: Store;
  /** How long an approval request lives when the host says (else its command's `approval_timeout`). */
  approvalTtlMs: number | undefined;
  /** The call's id: its `start`, `run` and `reap` audit events carry it as `payload.call_id`. */
  callId: string;
  /**
   * Commits the call's `start` audit event. The backend awaits it before it starts a process and
   * starts none when it throws (the answer is then `failed`, nothing ran).
   */
  recordStart(): Promise<void>;
  /** Aborted when the caller cancels the call: a running command's process group is killed. */
  signal?: AbortSignal | undefined;
  /** Told the bytes of output the command has written so far, as they grow (progress reports). */
  onOutputBytes?: ((seen: number) => void) | undefined;
  /** See {@link RunControl.onApprovalWait}. */
  onApprovalWait?: ((waiting: ApprovalWaiting | undefined) => void) | undefined;
  /**
   * Aborted when the host stops waiting for people (its broker closes): a call waiting for a
   * decision answers `approval_required` at once, its approval still pending.
   */
  waitsEnded?: AbortSignal | undefined;
  /** Told of each approval a call asks for, to announce it (the workspace's `notify` block). */
  notices?: ApprovalNotices | undefined;
  /**
   * The client session the call came from (the protocol's `session`): an approval it asks for is
   * bound to it, so another session of the same agent cannot consume it. Absent: none named.
   */
  session?: string | undefined;
}

/**
 * What the caller of one call may watch and stop while it runs (a broker connection that asked
 * for progress, or cancelled the request).
 */
export interface RunControl {
  /** Aborting it cancels the call: a pack command's process group is killed; a built-in runs to its end. */
  signal?: AbortSignal | undefined;
  /** Told the bytes of stdout + stderr a pack command has written so far, after each chunk. */
  onOutputBytes?: ((seen: number) => void) | undefined;
  /**
   * Told the approval a call held for a person's decision waits for (a pack's `approval_wait`) when
   * its wait begins, and `undefined` when the wait ends (decided, elapsed or cancelled).
   */
  onApprovalWait?: ((waiting: ApprovalWaiting | undefined) => void) | undefined;
}

/**
 * The outcome of one call as it is dispatched (a pack call as the backend reports it, or a
 * built-in's): its answer, and the audit detail the host records with it.
 */
export interface PackOutcome {
  answer: CommandAnswer;
  /** Audit detail beyond the host's own (e.g. the governance decision, the exit code). */
  audit?: Record<string, unknown>;
  /** True when the call's `run` event was already committed (a compose, in its own transaction). */
  audited?: boolean;
  /**
   * Removes the call's running record; the host calls it once the call's `run` event is recorded,
   * so a broker killed in between leaves a record the next broker turns into a `reap` event.
   */
  release?: (() => void) | undefined;
}

/** Pack commands as the host sees them; `@harness/packs` fills this (see ../packs-backend.ts). */
export interface PackBackend {
  /** Every available pack command's manifest row (no broker stamps). */
  rows(): readonly ManifestRow[];
  /** The structured audit payload of a command (`provider`, `container`, `member`, `effects`). */
  auditPayload(id: string): Record<string, unknown>;
  /** The action label, `command:call:{pack}:{command}`. */
  action(id: string): string;
  /** Runs one validated call: governance, approvals, the runner. */
  run(id: string, args: Record<string, unknown>, ctx: PackCallContext): Promise<PackOutcome>;
  /** Releases what the backend holds open (its running records, its spawner); once no call is in flight. */
  close?(): Promise<void>;
  /** Session ids (= pids) of the commands it is running now: a broker refuses their connections. */
  runningSessions?(): ReadonlySet<number>;
  /**
   * Starts what its rows need before they can be listed (its MCP servers, read once): the host
   * awaits it before a listing and, with the call's id, before looking up a call's row.
   */
  ready?(id?: string): Promise<void>;
  /** Why `id` has no row now (an MCP server that does not start, a tool held for review), if it knows. */
  unknown?(id: string): Unavailable | undefined;
  /**
   * The ids of tools listed upstream but held back until a person accepts their definitions
   * (SV-18): counted in a listing, never listed. The same array until they change.
   */
  quarantined?(): readonly string[];
}

/** Why a known id has no row: its server's tools are not served, or the tool is quarantined. */
export interface Unavailable {
  readonly reason: 'server_unavailable' | 'quarantined';
  /** Names ids, hashes and what to do; never a server's own words. */
  readonly message: string;
}

/** Which transport a call came through; direct transport runs built-ins only. */
export type Transport = 'broker' | 'direct';
