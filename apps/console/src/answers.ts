// The shapes of the console API's answers, one definition for the server that sends them and the
// page that reads them. Types only: the host's records come from `@harness/store/records`, a module
// that imports nothing, so the page's bundle holds none of the host or its store.
import type { ApprovalRecord, AuditEvent, LoomSummary, LoomView, Receipt } from '@harness/store/records';

export type { RunRecord } from '@harness/runner/records';

import type { RunRecord } from '@harness/runner/records';

export type {
  ApprovalRecord,
  AuditEvent,
  ComponentView,
  LoomSummary,
  LoomView,
  Receipt,
} from '@harness/store/records';

/** What the page shows of the run an approval allowed. */
export interface ApprovalOutcome {
  seq: number;
  at: string;
  outcome: string;
  code: string;
  /** The run's finer reason (`tests_failed`, `exit_nonzero`, …), `null` when it has none. */
  reason: string | null;
  /**
   * How the run ended, as the page says it: a failure the command's pack names, in words (`tests
   * failed`), else the audit outcome (`ok`, `failed`).
   */
  summary: string;
  exitCode: number | null;
}

/**
 * The command line an approval would allow, as the page shows it: `ok` with the argv the host
 * recorded, else why it cannot be shown. Only an approval whose plan is `ok` can be approved.
 */
export type ApprovalPlan = { ok: true; argv: string[] } | { ok: false; message: string };

/**
 * An approval with its plan as the page shows it, what that plan covers beyond the argv (the store's
 * `plan`: the program and its hash, the real cwd, the project files run as code), and the outcome of
 * its run once it ran.
 */
export type ApprovalAnswer = Omit<ApprovalRecord, 'plan'> & {
  outcome: ApprovalOutcome | null;
  plan: ApprovalPlan;
  covers: ApprovalRecord['plan'];
};

/** `GET /api/session`: the CSRF token state-changing requests carry, and the session's limits. */
export interface SessionAnswer {
  csrf: string | null;
  csrfHeader: string;
  person: string;
  instance: string;
  authoringConfig: boolean;
  /** The idle limit, ms: a session with no request the person made for this long ends. */
  idleMs: number;
  /** The lifetime, ms: a session ends this long after its login. */
  lifetimeMs: number;
}

/** `POST /api/session/logout`: the session has ended; `message` says how to log in again. */
export interface LogoutAnswer {
  signedOut: true;
  message: string;
}

/** `GET /api/approvals`. */
export interface ApprovalsAnswer {
  approvals: ApprovalAnswer[];
}

/** `GET /api/approvals/:id`. */
export interface ApprovalOneAnswer {
  approval: ApprovalAnswer;
}

/**
 * `GET /api/approvals/:id/calls`: the newest events of the approval's run (its agent's calls), newest
 * first, at most 10; `complete` is false when the search stopped at its bound (the agent's 2 000
 * newest events) before reaching the agent's first.
 */
export interface ApprovalCallsAnswer {
  run: string;
  calls: AuditEvent[];
  complete: boolean;
}

/** `GET /api/audit`: newest first; `next` is the cursor of the older page. */
export interface AuditPageAnswer {
  events: AuditEvent[];
  next: number | null;
}

/** `GET /api/audit/:seq`. */
export interface AuditEventAnswer {
  event: AuditEvent;
}

/** `GET /api/looms`. */
export interface LoomsAnswer {
  looms: LoomSummary[];
}

/** `GET /api/looms/:id`: the loom's current version and its receipts. */
export interface LoomAnswer {
  loom: LoomView;
  receipts: Receipt[];
}

/** `GET /api/runs`: the runner's run records, newest first. */
export interface RunsAnswer {
  runs: RunRecord[];
}

/**
 * `GET /api/runs/harnesses`: the runner file's harnesses, each as `describe` shows it beside its
 * entry as written (`null` when the file's text could not be read back). `file` is `null` when no
 * runner file is named; `problems` lists why a named one does not load.
 */
export interface HarnessesAnswer {
  kinds: readonly string[];
  variable: string;
  file: string | null;
  problems?: string[];
  warnings?: string[];
  harnesses: { id: string; describe: Record<string, unknown>; entry: Record<string, unknown> | null }[];
}

/** A compose receipt, as `loom_compose` returns it: the host's receipt, `committed_at` kept only where present. */
export type LoomReceipt = Omit<Receipt, 'committed_at'> & { committed_at?: string };

/** One entry of a task result's `looms`: a collection the turn committed. */
export interface AuthoredLoom {
  receipt: LoomReceipt;
  replayed: boolean;
  current_version: number;
}

/** Where a named Pattern was placed: ids only, never its token or cell address. */
export interface LoomComponentRef {
  loomId: string;
  componentId: string;
}

/** One entry of a task result's `pieces`: a Pattern the turn named. */
export interface Piece {
  slug: string;
  loomComponents?: LoomComponentRef[];
}

/** A completed turn, as `POST /api/task` answers it. */
export interface TaskResult {
  status: 'completed';
  sessionId: string;
  turnId: string;
  /** The run id this turn's tool calls and artifacts are recorded under (one per turn). */
  runId: string;
  /** The turn's own `input.loomId`; `null` when it had none. */
  originLoomId: string | null;
  text: string;
  /** Patterns this turn named (`assign_slug`), with `loomComponents` when proven. */
  pieces: Piece[];
  /** Collections this turn committed: verified `loom_compose` observations of this turn only. */
  looms: AuthoredLoom[];
  /** The tools the model was offered (the session's recorded policy, as configured now). */
  tools: string[];
}

/** What a task turn was asked: persisted as given, before the turn starts. */
export interface TurnInput {
  prompt: string;
  loomId?: string;
}

export type TurnStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

/** A durable task session: the tools it may use, recorded at creation or at an explicit refresh. */
export interface TaskSession {
  id: string;
  created_at: string;
  /** The tool names this session may use, recorded at creation or at an explicit refresh. */
  policy: { tools: string[]; recorded_at: string };
}

/** One turn of a task session. */
export interface TaskTurn {
  id: string;
  session_id: string;
  seq: number;
  created_at: string;
  input: TurnInput;
  /** The turn's own origin loom (`input.loomId`), never replaced by a later turn. */
  originLoomId: string | null;
  status: TurnStatus;
  result: Record<string, unknown> | null;
}

/** `GET /api/task/sessions`: the latest sessions, newest first, each with its number of turns. */
export interface TaskSessionsAnswer {
  sessions: (TaskSession & { turns: number })[];
}

/** `GET /api/task/sessions/:id`. */
export interface TaskSessionAnswer {
  session: TaskSession;
  turns: TaskTurn[];
}

/** The providers a task can use. `openai-compatible` covers local servers (Ollama, llama.cpp). */
export type ModelProvider = 'openai-compatible' | 'openai' | 'anthropic';

/** What the Tasks view shows: the model in use, or how to configure one. */
export type ModelStatus =
  | { configured: true; provider: ModelProvider; model: string; baseUrl: string | null }
  | { configured: false; problem: 'not_configured' | 'invalid'; message: string; howTo: string };

/** `GET /api/task/model`. */
export interface TaskModelAnswer {
  model: ModelStatus;
}

/** One enrolled passkey as `GET /api/passkeys` lists it (never its key). */
export interface PasskeyAnswer {
  id: string;
  label: string;
  algorithm: 'ES256' | 'Ed25519';
  created_at: string;
  last_used_at: string | null;
}

/** `GET /api/passkeys`: the enrolled passkeys, and what they are for on this console. */
export interface PasskeysAnswer {
  passkeys: PasskeyAnswer[];
  /** The relying party id passkeys are made for: the host name of the console's address. */
  rpId: string;
  /** Whether a passkey can be made here: the console's address is a host name, not an IP address. */
  enrolable: boolean;
  /** Decisions are signed with a passkey (there is one). */
  signDecisions: boolean;
  /** A decision without a passkey's assertion is refused (`passkey_required`): once one is enrolled, on loopback too. */
  signingRequired: boolean;
}

/** `POST /api/approvals/<id>/challenge`: the nonce and the WebAuthn request a decision is signed with. */
export interface DecisionChallengeAnswer {
  nonce: string;
  /** The WebAuthn request (JSON, binary fields base64url): its challenge binds the approval, decision, plan hash and nonce. */
  options: RequestOptionsJSON;
}

/** `PublicKeyCredentialRequestOptionsJSON`, as far as the page reads it. */
export interface RequestOptionsJSON {
  challenge: string;
  rpId?: string;
  timeout?: number;
  userVerification?: 'required' | 'preferred' | 'discouraged';
  allowCredentials?: { id: string; type: 'public-key'; transports?: string[] }[];
}

import type { ApprovalNotice } from '@harness/store/records';

export type { ApprovalNotice };

/** `GET /api/approvals/<id>/notices`: the delivery log of its announcements, oldest first (docs/notify.md). */
export interface ApprovalNoticesAnswer {
  notices: ApprovalNotice[];
}

/** One line of a held definition's review: a member as accepted (`before`) and as listed (`after`). */
export interface ServerDiffLine {
  /** `description`, `inputSchema.properties`, `annotations.readOnlyHint`, … */
  member: string;
  /** As accepted, shown quoted and escaped; absent for a member that is new. */
  before?: string;
  /** As listed now; absent for a member removed. */
  after?: string;
  /** Why a person should read it twice: long, hidden characters, fence markers, words addressed to a model. */
  flags: readonly string[];
}

/** One server tool definition held for a person's review (`GET /api/servers`). */
export interface HeldToolAnswer {
  server: string;
  /** `<server>.<member>`: the tool's id once accepted. */
  id: string;
  /** The name the server lists it under: what a decision names. */
  upstream: string;
  /** The definition hash (SV-17) a decision must name. */
  hash: string;
  change: 'new' | 'changed';
  firstSeen: string;
  lastSeen: string;
  accepted: { hash: string; at: string; by: string; via: string } | null;
  diff: ServerDiffLine[];
  /** False when the store has no definition text for it (recorded by an older host): decide it with the CLI. */
  decidable: boolean;
}

/** The definitions accepted for one server's tools. */
export interface ServerPinsAnswer {
  server: string;
  tools: { tool: string; hash: string; acceptedAt: string; acceptedBy: string; via: string }[];
}

/** `GET /api/servers`: the held definitions and the accepted ones, by server. */
export interface ServersAnswer {
  held: HeldToolAnswer[];
  servers: ServerPinsAnswer[];
}

/** `POST /api/servers/decision`: the decision recorded. */
export interface ToolDecisionAnswer {
  decided: {
    server: string;
    tool: string;
    hash: string;
    decision: 'accepted' | 'rejected';
    by: string;
    via: 'console';
  };
}
