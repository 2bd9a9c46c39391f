// The store interface. SQLite (./sqlite/) and PostgreSQL (./postgres/) fill it; a store is opened
// from a target by ./open.ts, so nothing outside this package names either.

/** How many components a stage holds at once (docs/host.md, "The stage model"). */
export const STAGE_CAPACITY = 8;

/** One component as a compose call asks for it, already validated. */
export interface ComponentInput {
  /** The whole reference, `<kind>:<rest>`; a `pattern_ref` arrives here as `pattern:<space>/<id>`. */
  ref: string;
  title?: string;
  stage?: string;
  focus?: boolean;
}

/** One compose, already validated and attributed by the command layer. */
export interface ComposeInput {
  /** The receipt namespace: the broker's run and agent (see docs/host.md, "Receipts"). */
  namespace: string;
  actor: string;
  run: string;
  requestId: string;
  loomId?: string;
  expectedVersion?: number;
  components: ComponentInput[];
  /** SHA-256 of the canonical JSON of the logical arguments (everything but `request_id`). */
  argsHash: string;
  /**
   * The call's audit event, built from the outcome. When given, the store appends it inside the
   * compose's own transaction, whatever the outcome: a committed compose always has its audit row,
   * and a compose that rolls back leaves none (the caller records that failure itself). It must
   * not throw and must not touch the store.
   */
  audit?: (outcome: ComposeOutcome) => AuditEventInput;
}

/** The durable evidence of one committed compose. Field names are the wire names. */
export interface Receipt {
  loom_id: string;
  request_id: string;
  version: number;
  created: boolean;
  component_ids: string[];
  operation_ids: string[];
  displaced: string[];
  committed_at: string;
}

/** What a compose did, as data. */
export type ComposeOutcome =
  | { kind: 'committed'; receipt: Receipt; currentVersion: number; displaced: string[] }
  | { kind: 'replayed'; receipt: Receipt; currentVersion: number }
  | { kind: 'version_conflict'; loomId: string; expectedVersion: number; currentVersion: number }
  | { kind: 'request_conflict'; requestId: string; loomId: string; version: number }
  | { kind: 'not_found'; loomId: string };

/** One component as `loom.inspect` shows it: metadata only, never the reference (no handles). */
export interface ComponentView {
  id: string;
  kind: string;
  title: string | null;
  stage: string | null;
  position: number;
  added_version: number;
}

/** One loom in a listing of the store's looms (no component reference, no handle). */
export interface LoomSummary {
  loom_id: string;
  version: number;
  created_at: string;
  updated_at: string;
  /** How many components it holds (on a stage or on the shelf). */
  components: number;
}

/** One loom as `loom.inspect` shows it. */
export interface LoomView {
  loom_id: string;
  version: number;
  created_at: string;
  updated_at: string;
  components: ComponentView[];
  layout: { stages: Record<string, string[]>; shelf: string[]; focus: string | null };
}

/** One audit event as stored. `payload` never holds a credential or a raw argument value. */
export interface AuditEvent {
  seq: number;
  at: string;
  run: string;
  actor: string;
  job: string | null;
  command: string;
  action: string;
  /**
   * `start`: a pack command is about to start (written, and durable, before its process is
   * spawned; the call's `run` event, or a `reap` event, ends it; both carry its `payload.call_id`).
   * `run`: a call's answer. `approval`: a person approved or denied a call (`decideApproval`).
   * `reap`: the next broker found a running record a crashed broker left (docs/host.md, "Audit").
   * `workspace`: a running broker switched to its edited workspace file, or kept the old one.
   * `pin`: a person accepted or rejected an MCP server tool's definition (`decideTool`).
   */
  phase: 'list' | 'start' | 'run' | 'approval' | 'reap' | 'workspace' | 'pin';
  outcome: string;
  code: string;
  reason: string | null;
  payload: Record<string, unknown>;
}

/**
 * An audit event with its place in its host's hash chain (docs/audit.md). `chain`, `n`, `prev` and
 * `hash` are `null` on an event recorded before the store kept chains.
 */
export interface ChainedAuditEvent extends AuditEvent {
  /** The chain: the fingerprint of the appending instance's key (or `unsigned`). */
  chain: string | null;
  /** Its position in the chain, from 1. */
  n: number | null;
  /** The hash of the event before it in the chain (64 zeros for the first). */
  prev: string | null;
  /** SHA-256 of its canonical encoding, lowercase hex. */
  hash: string | null;
}

/**
 * Why a checkpoint was written: `genesis` (a chain's start, position 0), `schedule` (every few
 * minutes while the chain grows), `shutdown` (the store closing), `export` (before an export),
 * `prune` (what a prune removed: the chain may start after it).
 */
export type AuditCheckpointKind = 'genesis' | 'schedule' | 'shutdown' | 'export' | 'prune';

/** A signed statement that a chain's event at position `n` has hash `head`. */
export interface AuditCheckpoint {
  id: number;
  chain: string;
  n: number;
  head: string;
  at: string;
  kind: AuditCheckpointKind;
  /** For a `prune` checkpoint: how many events of the chain it removed; otherwise 0. */
  removed: number;
  /** The signer's public key, `ed25519:<base64url>`; its fingerprint is the chain. */
  publicKey: string;
  /** Ed25519 over the checkpoint's canonical text (docs/audit.md), base64. */
  signature: string;
}

/** What signs a store's checkpoints: an instance key (made by `@harness/store`'s audit key helpers). */
export interface AuditSigner {
  /** The chain it appends to: the fingerprint of its public key. */
  readonly chain: string;
  /** `ed25519:<base64url>`. */
  readonly publicKey: string;
  /** The Ed25519 signature of a text's UTF-8 bytes, base64. */
  sign(message: string): string;
}

/** How a store is opened beyond its target. */
export interface StoreOpenOptions {
  /**
   * The instance key: events are appended to its chain and checkpoints signed with it. Without
   * one, events go to the `unsigned` chain and no checkpoint is written.
   */
  auditSigner?: AuditSigner | undefined;
  /** How often a checkpoint is written while the chain grows (default 5 minutes). */
  checkpointEveryMs?: number;
  /**
   * `false`: events are written without chain fields and no checkpoint is signed, which
   * `verifyAudit` reports as unchained events. Only to measure what the chain costs
   * (`HARNESS_AUDIT_CHAIN=off`, docs/audit.md); default `true`.
   */
  chainAudit?: boolean;
}

/** An audit event before it is stored. */
export type AuditEventInput = Omit<AuditEvent, 'seq' | 'at'>;

/** The most events one {@link Store.queryAudit} page holds; a larger `limit` is cut to it. */
export const AUDIT_PAGE_MAX = 1000;

/**
 * A filtered page of the audit log. Every filter is an exact match on the field of the same name
 * (`actor` is `agent:<id>` for an agent's calls); filters combine with AND. Cursors are `seq`s:
 * with `after`, the page is the first `limit` matching events after it (what follows, e.g. for
 * `--follow`); otherwise the last `limit` matching events before `before` (or the newest).
 * Both may be given to bound a range.
 */
export interface AuditQuery {
  actor?: string;
  command?: string;
  outcome?: string;
  /** ISO time: events recorded at or after it. */
  since?: string;
  /** ISO time: events recorded before it. */
  until?: string;
  after?: number;
  before?: number;
  /** 1 to {@link AUDIT_PAGE_MAX}; default 100. */
  limit?: number;
}

/** One page of {@link Store.queryAudit}, oldest first, with the cursors of its neighbours. */
export interface AuditPage {
  events: AuditEvent[];
  /** Pass as `before` for the older page; `null` when no older event matches. */
  older: number | null;
  /** Pass as `after` for the newer page; `null` when no newer event matches (yet). */
  newer: number | null;
}

/** The states of an approval (docs/host.md, "Approvals"). */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'consumed' | 'expired';

/**
 * Where a person gave a decision: `harness`/`loom approvals` (`cli`), the console, their MCP client
 * (`elicitation`), or `harness init --import` accepting the definitions it listed (`init`).
 */
export type DecisionVia = 'cli' | 'console' | 'elicitation' | 'init';

/**
 * A person's passkey (WebAuthn) assertion over one decision. Its challenge is
 * `decisionChallenge(approvalId, decision, planHash, nonce)`; the signature covers
 * authenticatorData ‖ SHA-256(clientDataJSON). Every binary field is base64url.
 */
export interface DecisionAssertion {
  /** The passkey's credential id. */
  credentialId: string;
  /** The passkey's public key, SPKI DER: what a verifier needs offline. */
  publicKey: string;
  /** `ES256` (P-256 ECDSA, DER signature) or `Ed25519`. */
  algorithm: 'ES256' | 'Ed25519';
  authenticatorData: string;
  clientDataJSON: string;
  signature: string;
  /** The server's single-use nonce the challenge binds. */
  nonce: string;
  /**
   * The approval's plan hash the challenge binds (`''` for an approval recorded without one); for a
   * decision on a server tool's definition, the definition hash.
   */
  planHash: string;
}

/** What an approval's plan covers beyond its argv, as {@link ApprovalRecord.plan} shows it. */
export interface ApprovalPlan {
  executable: string | null;
  executable_sha256: string | null;
  cwd_real: string | null;
  inputs: { path: string; sha256: string }[];
}

/**
 * What a command's `preview` showed when its call was held for approval (docs/packs.md, "Display
 * and preview"): a read command of the same pack, run confined, and its output cut to 40 lines and
 * 4 KiB, or the one line saying why there is none (it did not run, failed or timed out).
 */
export interface ApprovalPreviewOutput {
  /** Manifest id of the read command that ran (`git.staged_diff`). */
  command: string;
  /** `false`: `text` is the line saying why there is no output. */
  ok: boolean;
  text: string;
  /** Whether output past the bounds was left out. */
  truncated: boolean;
}

/** One approval request for a `strict` call. */
export interface ApprovalRecord {
  id: string;
  /** SHA-256 over command, canonical arguments and agent: what "an identical call" means. */
  key: string;
  command: string;
  agent: string;
  run: string;
  /** The action label, e.g. `command:call:json-tools:edit-in-place`. */
  action: string;
  /** Why approval is needed, one line. */
  reason: string;
  /** The argument names. */
  arg_names: string[];
  /**
   * The argument values the call gave, every credential value replaced by `[redacted]` before it
   * was stored; `null` for a request recorded before values were kept.
   */
  args: Record<string, unknown> | null;
  /**
   * The argv the call would run, rendered from the command's frozen template, credentials
   * replaced; `null` when it does not render (the run would be refused) or for an older request.
   */
  argv: string[] | null;
  /** The tier of the command's pack that sent the call to approval; `null` for an older request. */
  tier: string | null;
  /**
   * The command's display line with the call's values (escaped, cut, credentials replaced): what a
   * person reads first. `null`: the command declares none (people read the argv), or an older request.
   */
  display: string | null;
  /** What the command's preview showed; `null`: it declares none, or an older request. */
  preview: ApprovalPreviewOutput | null;
  /**
   * SHA-256 (hex) of the exact plan the call would run (command, rendered argv, resolved
   * executable, env names, cwd, sandbox, pack): an approved call runs only while its plan hashes
   * the same. `null` for an older request.
   */
  plan_hash: string | null;
  /**
   * What the plan covers beyond the argv, for the person deciding: the program and its bytes' hash,
   * the working directory's real path, and each project file the command runs as code with its
   * bytes' hash (`absent` when missing). `null` for an older request.
   */
  plan: ApprovalPlan | null;
  /**
   * The client session that asked (an MCP session of `harness serve`): only a call of that session
   * consumes the approval. `null`: the call named none.
   */
  session: string | null;
  /** How the decision was given (`cli`, `console`, `elicitation`); `null` while pending, or when the decider did not say. */
  decided_via: DecisionVia | null;
  /**
   * The person's passkey assertion over the decision (a console with passkeys signs it), kept so a
   * verifier checks it offline; `null` for a decision given without one.
   */
  assertion: DecisionAssertion | null;
  status: ApprovalStatus;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  consumed_at: string | null;
}

/** A request for approval as the command layer records it. */
export interface ApprovalRequest {
  key: string;
  command: string;
  agent: string;
  run: string;
  action: string;
  reason: string;
  argNames: string[];
  /** Argument values, credentials already replaced (see {@link ApprovalRecord.args}). */
  args: Record<string, unknown>;
  argv: string[] | null;
  tier: string;
  /** See {@link ApprovalRecord.display}. */
  display?: string;
  /** See {@link ApprovalRecord.preview}. */
  preview?: ApprovalPreviewOutput;
  /** See {@link ApprovalRecord.plan_hash}. */
  planHash?: string;
  /** See {@link ApprovalRecord.plan}. */
  plan?: ApprovalPlan;
  /** See {@link ApprovalRecord.session}. */
  session?: string;
  ttlMs: number;
  now?: Date;
}

/** What an approval notice announces (docs/notify.md). */
export type NoticeEvent = 'approval.pending' | 'approval.approved' | 'approval.denied' | 'approval.expired';

/** Where one announcement stands: `sending` (claimed, attempts under way), `delivered`, `failed` (every attempt failed). */
export type NoticeStatus = 'sending' | 'delivered' | 'failed';

/** One row of an approval's delivery log: one event announced to one notify target. */
export interface ApprovalNotice {
  id: number;
  approval: string;
  /** The target's name in the workspace's `notify` block. */
  target: string;
  event: NoticeEvent;
  status: NoticeStatus;
  /** The attempts made so far. */
  attempts: number;
  /** The HTTP status of the last answer; `null` when none came (timeout, refused connection). */
  http_status: number | null;
  /** Why the last attempt failed, in a few words (`HTTP 500`, `timeout after 5s`): never a URL or a secret. */
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** The state of one announcement after an attempt, as the notifier records it. */
export interface NoticeUpdate {
  approval: string;
  target: string;
  event: NoticeEvent;
  status: NoticeStatus;
  attempts: number;
  httpStatus: number | null;
  error: string | null;
  now?: Date;
}

/**
 * The definition of one MCP server tool a person accepted (docs/servers.md, "Pinned definitions"):
 * per workspace server id and upstream tool name, one hash at a time.
 */
export interface ToolPin {
  server: string;
  /** The name the server lists the tool under. */
  tool: string;
  /** The definition hash accepted (SV-17): lowercase hex SHA-256. */
  hash: string;
  /** The definition accepted, as the RFC 8785 JSON text its hash is over: what a review diffs against. */
  definition: string;
  accepted_at: string;
  accepted_by: string;
  via: DecisionVia;
}

/**
 * A definition of a server tool that was listed without being accepted: when it first appeared,
 * and whether a person rejected it since.
 */
export interface ToolSighting {
  server: string;
  tool: string;
  hash: string;
  /**
   * The definition listed, as the RFC 8785 JSON text `hash` is over: what a review shows and diffs.
   * `null` for a sighting recorded before the store kept it (schema 7 on SQLite, 6 on PostgreSQL).
   */
  definition: string | null;
  first_seen: string;
  /** When a listing last showed it: the latest sighting of a tool is the definition listed now. */
  last_seen: string;
  rejected_at: string | null;
  rejected_by: string | null;
}

/** A person's decision on one listed definition of a server tool (SV-19). */
export interface ToolDecision {
  server: string;
  tool: string;
  hash: string;
  /** The definition decided on, as the RFC 8785 JSON text `hash` is over (kept with an accepted one). */
  definition: string;
  decision: 'accepted' | 'rejected';
  by: string;
  via: DecisionVia;
  /** The person's passkey assertion over the decision (the console's), kept in its audit event. */
  assertion?: DecisionAssertion;
  now?: Date;
}

/** What {@link Store.prune} removed. */
export interface PruneResult {
  audit: number;
  approvals: number;
}

/**
 * The store every host part reads and writes through. Every method is one transaction and is
 * asynchronous, so a store may sit across a network (PostgreSQL) as well as in a file (SQLite).
 */
export interface Store {
  /** Commits components, operations and the receipt of one compose atomically, or changes nothing. */
  compose(input: ComposeInput): Promise<ComposeOutcome>;
  /** One loom's current version, components and layout; `undefined` when it does not exist. */
  inspect(loomId: string): Promise<LoomView | undefined>;
  /** The newest receipts of one namespace, newest first, at most `limit`. */
  receipts(namespace: string, limit: number): Promise<Receipt[]>;
  /** The looms, most recently changed first, at most `limit` (what a console lists). */
  listLooms(limit: number): Promise<LoomSummary[]>;
  /** One loom's receipts, every namespace, newest first, at most `limit`: its versions. */
  loomReceipts(loomId: string, limit: number): Promise<Receipt[]>;
  /**
   * Appends one audit event and returns its sequence number once the event is committed: a
   * `start` event must survive the broker process being killed right after this resolves.
   */
  appendAudit(event: AuditEventInput): Promise<number>;
  /** The last `limit` audit events, oldest first. */
  tailAudit(limit: number): Promise<AuditEvent[]>;
  /** One filtered page of the audit log, oldest first (see {@link AuditQuery}). */
  queryAudit(query: AuditQuery): Promise<AuditPage>;
  /**
   * Deletes audit events of this store's chain (and events from before chains) recorded before
   * `before`, writing a signed `prune` checkpoint of what it removed, and approvals that can never be used again
   * (consumed, denied or expired) whose last change is before it. Receipts are kept: a retry with
   * the same request id must always replay its receipt. Returns how many rows went.
   */
  prune(before: Date): Promise<PruneResult>;
  /**
   * Audit events with their chain fields, in `seq` order: those after `after`, at most `limit`
   * (up to {@link AUDIT_PAGE_MAX}), what a verifier or an export reads page by page.
   */
  readAuditChain(after: number, limit: number): Promise<ChainedAuditEvent[]>;
  /** Every checkpoint of every chain, by chain and position. */
  auditCheckpoints(): Promise<AuditCheckpoint[]>;
  /**
   * Signs the head of this store's chain (its instance key's) when it has moved since its newest
   * checkpoint: the new checkpoint, or `undefined` (nothing new, or no key). A chain with no event
   * yet is begun: its `genesis` checkpoint is written (what creating an instance does).
   */
  checkpointAudit(kind: 'schedule' | 'shutdown' | 'export'): Promise<AuditCheckpoint | undefined>;
  /** Consumes a live approved approval for `key` (single use); `undefined` when there is none. */
  takeApproval(key: string, now?: Date): Promise<ApprovalRecord | undefined>;
  /** Returns the live denied or pending approval for `key`, or records a new pending one. */
  requestApproval(input: ApprovalRequest): Promise<ApprovalRecord>;
  /** One approval by id, as stored. */
  getApproval(id: string): Promise<ApprovalRecord | undefined>;
  /** Approvals, newest first; by default the pending ones only. */
  listApprovals(filter?: { status?: ApprovalStatus | 'all'; now?: Date }): Promise<ApprovalRecord[]>;
  /**
   * Approves or denies a pending approval; its use window restarts at the decision. The decision's
   * audit event (phase `approval`, actor `by`, outcome the decision) commits with it.
   */
  decideApproval(
    id: string,
    decision: 'approved' | 'denied',
    by: string,
    ttlMs: number,
    now?: Date,
    via?: DecisionVia,
    assertion?: DecisionAssertion,
  ): Promise<ApprovalRecord>;
  /**
   * Claims the announcement of `event` of approval `approval` to `target`: records it `sending`
   * and answers `true`, or answers `false` when it is already recorded (another host, or an earlier
   * run of this one, claimed it). The one place "announced once" is decided.
   */
  claimNotice(notice: { approval: string; target: string; event: NoticeEvent; now?: Date }): Promise<boolean>;
  /** Records where a claimed announcement stands after an attempt. */
  recordNotice(update: NoticeUpdate): Promise<void>;
  /** The delivery log of one approval, oldest first. */
  listNotices(approval: string): Promise<ApprovalNotice[]>;
  /** The accepted definitions of server tools, by server and tool; of one server when `server` is given. */
  listToolPins(server?: string): Promise<ToolPin[]>;
  /**
   * Records that a definition no person accepted was listed, once per (server, tool, hash): the
   * sighting as stored, its `first_seen` the first time it was recorded, and `inserted` true for the
   * one call that recorded it (across restarts and every host of a shared store): the claim to
   * announce it (docs/notify.md, "Server tools"). Every call moves its `last_seen` to `now` (never
   * back), and keeps `definition` when the sighting had none.
   */
  sightTool(sighting: {
    server: string;
    tool: string;
    hash: string;
    /** The definition listed, as the RFC 8785 JSON text `hash` is over. */
    definition: string;
    now?: Date;
  }): Promise<ToolSighting & { inserted: boolean }>;
  /** The recorded sightings, by server, tool and first seen; of one server when `server` is given. */
  listToolSightings(server?: string): Promise<ToolSighting[]>;
  /**
   * Accepts a definition (it becomes the tool's pin, replacing any earlier one) or rejects it (its
   * sighting is marked rejected; the tool's pin, if any, stays). Its audit event (phase `pin`,
   * actor `by`) commits with it.
   */
  decideTool(decision: ToolDecision): Promise<void>;
  /** Writes a `shutdown` checkpoint when this store appended since the last one, then releases the store's file or connections. */
  close(): Promise<void>;
}

/** Where an instance keeps its store: what `instance.json` records, resolved to absolute paths. */
export type StoreTarget = SqliteTarget | PostgresTarget;

/** The embedded store: one SQLite file (in the instance directory). */
export interface SqliteTarget {
  kind: 'sqlite';
  file: string;
}

/**
 * A PostgreSQL store, shared by every host whose instance names the same database and schema
 * (docs/host.md, "Several hosts"). It never holds a password: that comes from `PGPASSWORD`,
 * `DATABASE_URL` or `~/.pgpass` when the store is opened.
 */
export interface PostgresTarget {
  kind: 'postgres';
  host: string;
  port: number;
  database: string;
  user: string;
  /** The PostgreSQL schema (namespace) that holds the tables, e.g. `loom`. */
  schema: string;
}

/** Opens the store of a target; the host is given one (default: {@link openStoreTarget}). */
export type StoreFactory = (target: StoreTarget, options?: StoreOpenOptions) => Promise<Store>;
