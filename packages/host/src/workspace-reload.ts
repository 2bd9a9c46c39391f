// A broker's workspace while it runs: the one it serves, and the switch to its file's edited content
// (docs/host.md, "Editing the workspace while the broker runs"). Content that loads and resolves the
// broker's scope replaces the command host (backend and scope together) for every call that starts
// after; calls in flight finish on the host they started on. Content that does not leaves the old
// one served. Content that widens what an agent may do is held until a person accepts it
// (docs/workspace-changes.md): the process that wrote the file may be the agent's own code. Each
// outcome is one audit event and one line on the broker's log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine, instanceArgs } from '@harness/config/instance';
import type { PacksIssue } from '@harness/packs';
import type { AuditEventInput, Store } from '@harness/store';
import { recordEvent } from './command/audit';
import { HostError, HostErrorCode } from './errors';
import type { CommandHost, PackBackend } from './host';
import { CREDENTIALS_FILE, type PackRuntime, readPackBackend, workspaceDigest } from './packs-backend';
import { REAP_ACTOR } from './running';
import { type ResolvedScope, resolveScope, type ScopeFile } from './scope';
import {
  ACCEPTED_FILE,
  AcceptanceAction,
  acceptCommand,
  clearPending,
  readAccepted,
  SHOWN_DIGEST,
  writeAccepted,
  writePending,
} from './workspace-acceptance';
import { type AuthorityDiff, type AuthorityWorkspace, compareAuthority } from './workspace-authority';
import { type FileContent, readContent, watchFileContent } from './workspace-watch';

/** The audit actions of a workspace check that switched, failed or was held (phase `workspace`). */
export const WorkspaceAction = {
  reloaded: 'host:workspace_reloaded',
  reload_failed: 'host:workspace_reload_failed',
  held: AcceptanceAction.held,
} as const;

/** What a broker serves: the command host over one content of its workspace, and the scope in it. */
export interface ServedWorkspace {
  readonly host: CommandHost;
  readonly scope: ResolvedScope;
  /** The SHA-256 (hex) of the workspace file's bytes this host was loaded from. */
  readonly digest: string;
  /** The workspace loaded: what an edit's authority is compared with. */
  readonly workspace: AuthorityWorkspace;
}

/** Why an edited workspace is not served: its first error, where that is, and how many there are. */
export interface WorkspaceProblem {
  /** `workspace_invalid`, `scope_invalid`, `instance_invalid` (its credentials file), else `internal`. */
  readonly code: string;
  /** The first error's own code (a `@harness/packs` issue code such as `yaml_syntax`), when it has one. */
  readonly issue: string | null;
  readonly message: string;
  /** `file:line:column` of the first error, or the file it concerns. */
  readonly where: string;
  /** How many errors stop the content (`harness packs check <file>` shows each). */
  readonly count: number;
}

/** What one check of a broker's workspace file came to. */
export type WorkspaceCheck =
  | { readonly outcome: 'unchanged'; readonly digest: string }
  | {
      readonly outcome: 'reloaded';
      readonly from: string;
      readonly to: string;
      /** `widens_nothing`: applied at once; `accepted`: a person accepted this content. */
      readonly how: 'widens_nothing' | 'accepted';
    }
  | {
      readonly outcome: 'held';
      /** The digest of the content still served. */
      readonly served: string;
      /** The digest of the content held for a person's acceptance. */
      readonly digest: string;
      readonly widenings: readonly string[];
    }
  | {
      readonly outcome: 'failed';
      /** The digest of the content still served. */
      readonly served: string;
      /** The digest of the content that failed; `null` when the file could not be read. */
      readonly digest: string | null;
      readonly problem: WorkspaceProblem;
    };

/** Options of {@link followWorkspace}: what a broker's start loaded, and how it builds a host. */
export interface FollowOptions {
  readonly workspaceFile: string;
  readonly instanceDir: string;
  /** The scope the broker was started with, resolved again against each edit. */
  readonly scope: ScopeFile;
  /** The scope file's path when the scope came from one (for messages). */
  readonly scopeFile: string | undefined;
  /** The runtime of the backend loaded at start: every reload's backend borrows it. */
  readonly runtime: PackRuntime;
  readonly store: Store;
  readonly initial: ServedWorkspace;
  /** The digest of content the broker's start already held for a person (and said so). */
  readonly held?: string | undefined;
  /** The command host of a scope over a backend: what the broker's start builds. */
  readonly makeHost: (scope: ResolvedScope, backend: PackBackend) => CommandHost;
  /** One line of the broker's log (no newline). */
  readonly log: (line: string) => void;
  readonly onCheck?: ((check: WorkspaceCheck) => void) | undefined;
}

/** A broker's followed workspace: what serves a call that starts now. */
export interface FollowedWorkspace {
  current(): ServedWorkspace;
  /** Stops following (a check under way ends first). */
  close(): Promise<void>;
}

const short = (digest: string | null): string =>
  digest === null ? 'unreadable' : digest.slice(0, SHOWN_DIGEST);
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ');

/** The problem of a workspace that does not load: its first issue, and the count. */
function issueProblem(issues: readonly PacksIssue[], workspaceFile: string): WorkspaceProblem {
  const first = issues[0];
  const file = first?.file ?? workspaceFile;
  const where = first?.line === undefined ? file : `${file}:${first.line}:${first.column ?? 1}`;
  return {
    code: HostErrorCode.workspace_invalid,
    issue: first?.code ?? null,
    message: first?.message ?? 'the workspace does not load',
    where,
    count: Math.max(1, issues.length),
  };
}

/** The problem a load or a scope resolution threw. */
function thrownProblem(error: unknown, options: FollowOptions): WorkspaceProblem {
  const message = oneLine(error instanceof Error ? error.message : String(error));
  if (error instanceof HostError && error.code === HostErrorCode.scope_invalid) {
    // An agent's grants are declared in the workspace; a scope file's narrowing in the scope file.
    const where = options.scopeFile ?? options.workspaceFile;
    return { code: error.code, issue: null, message, where, count: 1 };
  }
  if (error instanceof HostError && error.code === HostErrorCode.instance_invalid) {
    const where = join(options.instanceDir, CREDENTIALS_FILE);
    return { code: error.code, issue: null, message, where, count: 1 };
  }
  return { code: 'internal', issue: null, message, where: options.workspaceFile, count: 1 };
}

/** Content that loads and serves the scope, before a host is made over it (only if it is served). */
type Candidate = Omit<ServedWorkspace, 'host'> & { readonly backend: PackBackend };

/** What `content` would serve, or why it cannot serve the broker's scope. Never throws. */
async function nextServed(
  options: FollowOptions,
  content: FileContent,
): Promise<{ ok: true; served: Candidate } | { ok: false; problem: WorkspaceProblem }> {
  try {
    // The bytes checked are the bytes loaded; an unreadable file is read once more, to be named.
    const read = await readPackBackend(options.workspaceFile, options.instanceDir, {
      runtime: options.runtime,
      ...(content.ok ? { bytes: content.bytes } : {}),
    });
    if (!read.ok) return { ok: false, problem: issueProblem(read.issues, options.workspaceFile) };
    const scope = resolveScope(options.scope, read.scopeWorkspace, options.scopeFile);
    return {
      ok: true,
      served: { backend: read.backend, scope, digest: read.digest, workspace: read.workspace },
    };
  } catch (error) {
    return { ok: false, problem: thrownProblem(error, options) };
  }
}

/** The audit event of a check that switched (`problem` absent) or failed. */
function workspaceEvent(
  options: FollowOptions,
  served: ServedWorkspace,
  before: string,
  after: string | null,
  problem?: WorkspaceProblem,
  how?: 'widens_nothing' | 'accepted',
): AuditEventInput {
  return {
    run: served.scope.run,
    // The host itself, as for a reap: no agent asked for this.
    actor: REAP_ACTOR,
    job: null,
    command: '*',
    action: problem === undefined ? WorkspaceAction.reloaded : WorkspaceAction.reload_failed,
    phase: 'workspace',
    outcome: problem === undefined ? 'reloaded' : 'failed',
    code: problem?.code ?? 'ok',
    reason: problem?.issue ?? null,
    payload: {
      path: options.workspaceFile,
      old_digest: before,
      new_digest: after,
      ...(problem === undefined
        ? { commands: served.scope.commands.size, ...(how === undefined ? {} : { how }) }
        : { error: { message: problem.message, where: problem.where }, error_count: problem.count }),
    },
  };
}

/** The audit event of content held for a person: what it would widen and narrow. */
export function heldEvent(
  run: string,
  file: string,
  served: string,
  digest: string,
  diff: AuthorityDiff,
): AuditEventInput {
  return {
    run,
    actor: REAP_ACTOR,
    job: null,
    command: '*',
    action: WorkspaceAction.held,
    phase: 'workspace',
    outcome: 'held',
    code: 'acceptance_required',
    reason: null,
    payload: {
      path: file,
      old_digest: served,
      new_digest: digest,
      widenings: diff.widenings.map((c) => c.text),
      narrowings: diff.narrowings.map((c) => c.text),
    },
  };
}

/** The one line that says content is held, what it widens first, and how a person accepts it. */
export function heldLine(
  file: string,
  served: string,
  digest: string,
  diff: AuthorityDiff,
  instanceDir: string,
  atStart: boolean,
): string {
  const n = diff.widenings.length;
  const what = atStart
    ? `the workspace ${file} (sha256 ${short(digest)}) differs from the one last accepted for this instance (sha256 ${short(served)}) and widens it`
    : `the edited workspace ${file} (sha256 ${short(digest)}) widens what agents may do`;
  return `harness broker: ${what}, so sha256 ${short(served)} is still served until a person accepts the edit: ${n} widening(s), first "${diff.widenings[0]?.text ?? ''}"; review it with ${commandLine(['harness', 'workspace', 'pending', ...instanceArgs(instanceDir)])}, accept it with ${acceptCommand(digest, instanceDir)}`;
}

/** The warning line of an edit that is not served. */
function failureLine(file: string, served: string, digest: string | null, problem: WorkspaceProblem): string {
  const more = problem.count > 1 ? ` (and ${problem.count - 1} more error(s))` : '';
  return `harness broker: warning: the edited workspace ${file} (sha256 ${short(digest)}) cannot be served, so the old one (sha256 ${short(served)}) is still served: ${problem.where}: ${problem.message}${more}; see every error with: ${commandLine(['harness', 'packs', 'check', file])}`;
}

/** The digest of the accepted record's file (what its watch starts from). */
function recordKey(file: string): string {
  try {
    return workspaceDigest(readFileSync(file));
  } catch (error) {
    return `unreadable:${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
}

/**
 * The state of a followed workspace: what is served, whether the last check failed, and what is
 * held for a person; and the check of one content of the file against it.
 */
class Follower {
  readonly #options: FollowOptions;
  #served: ServedWorkspace;
  // Whether the last content checked failed: an edit back to the served content is then said.
  #failing = false;
  // The digest of the content held for a person, already said once.
  #held: string | undefined;

  constructor(options: FollowOptions) {
    this.#options = options;
    this.#served = options.initial;
    this.#held = options.held;
  }

  /** What serves a call that starts now. */
  get served(): ServedWorkspace {
    return this.#served;
  }

  /** The digest the file's watch starts from: the content held, else the content served. */
  get seen(): string {
    return this.#held ?? this.#served.digest;
  }

  /**
   * Checks one content of the file. `quiet`: a check the accepted record's change asked for, not
   * an edit: the same content is not news.
   */
  async apply(content: FileContent, quiet = false): Promise<void> {
    const options = this.#options;
    if (content.ok && content.digest === this.#served.digest) return this.#unchanged(content.digest, quiet);
    const digest = content.ok ? content.digest : null;
    const next = await nextServed(options, content);
    if (!next.ok) return this.#failed(digest, next.problem, quiet);
    const bytes = (content as { bytes: Buffer }).bytes;
    if (next.served.digest === this.#acceptedDigest()) return this.#switchTo(next.served, bytes, 'accepted');
    const diff = compareAuthority(this.#served.workspace, next.served.workspace);
    if (diff.widenings.length === 0) return this.#switchTo(next.served, bytes, 'widens_nothing');
    return this.#hold(next.served.digest, diff, quiet);
  }

  /** The file is the content served again: whatever failed or was held before is over. */
  #unchanged(digest: string, quiet: boolean): void {
    const { log, onCheck, workspaceFile: file, instanceDir: dir } = this.#options;
    if (this.#failing || this.#held !== undefined)
      log(
        `harness broker: the workspace ${file} is again the one served (sha256 ${short(this.#served.digest)})`,
      );
    if (this.#held !== undefined) clearPending(dir);
    this.#failing = false;
    this.#held = undefined;
    if (!quiet) onCheck?.({ outcome: 'unchanged', digest });
  }

  /** Content that cannot serve the scope: the old one stays served, and this is said once. */
  async #failed(digest: string | null, problem: WorkspaceProblem, quiet: boolean): Promise<void> {
    const options = this.#options;
    if (quiet && this.#failing) return;
    this.#failing = true;
    const served = this.#served;
    await recordEvent(options.store, workspaceEvent(options, served, served.digest, digest, problem));
    options.log(failureLine(options.workspaceFile, served.digest, digest, problem));
    options.onCheck?.({ outcome: 'failed', served: served.digest, digest, problem });
  }

  /** Content that widens what was accepted: held for a person, and said once per content. */
  async #hold(digest: string, diff: AuthorityDiff, quiet: boolean): Promise<void> {
    const options = this.#options;
    const served = this.#served;
    this.#failing = false;
    const widenings = diff.widenings.map((c) => c.text);
    if (this.#held === digest) {
      if (!quiet) options.onCheck?.({ outcome: 'held', served: served.digest, digest, widenings });
      return;
    }
    this.#held = digest;
    writePending(options.instanceDir, {
      digest,
      served: served.digest,
      at: new Date().toISOString(),
      widenings: diff.widenings,
      narrowings: diff.narrowings,
    });
    await recordEvent(
      options.store,
      heldEvent(served.scope.run, options.workspaceFile, served.digest, digest, diff),
    );
    options.log(heldLine(options.workspaceFile, served.digest, digest, diff, options.instanceDir, false));
    options.onCheck?.({ outcome: 'held', served: served.digest, digest, widenings });
  }

  /** The digest of the content last accepted for the instance; none when its record is damaged. */
  #acceptedDigest(): string | undefined {
    try {
      return readAccepted(this.#options.instanceDir)?.digest;
    } catch {
      // A damaged record accepts nothing; the broker's next start says what is wrong with it.
      return undefined;
    }
  }

  /** Serves `next` from the next call that starts, and records why (`how`). */
  async #switchTo(next: Candidate, bytes: Buffer, how: 'widens_nothing' | 'accepted'): Promise<void> {
    const options = this.#options;
    const { workspaceFile: file, instanceDir: dir } = options;
    const before = this.#served;
    // The switch: the next call that starts takes this host; none is left half switched. A host
    // is made only here, so content held or refused leaves nothing behind.
    const { backend, ...rest } = next;
    const served: ServedWorkspace = { ...rest, host: options.makeHost(next.scope, backend) };
    this.#served = served;
    this.#failing = false;
    this.#held = undefined;
    // Content that widens nothing is accepted as it is: the next edit is compared with it.
    if (how === 'widens_nothing') writeAccepted(dir, bytes, REAP_ACTOR, 'narrowing');
    clearPending(dir);
    await recordEvent(
      options.store,
      workspaceEvent(options, served, before.digest, served.digest, undefined, how),
    );
    const what =
      how === 'accepted' ? `the workspace ${file} a person accepted` : `the edited workspace ${file}`;
    options.log(
      `harness broker: switched to ${what} (sha256 ${short(served.digest)}, was ${short(before.digest)}): ${served.scope.commands.size} pack command(s) for ${served.scope.actor}; calls already running finish on the old one`,
    );
    options.onCheck?.({ outcome: 'reloaded', from: before.digest, to: served.digest, how });
  }
}

/**
 * Follows the broker's workspace file from the content loaded at start (`initial`): each edited
 * content is loaded and the scope resolved against it; content that widens nothing is served at
 * once, content that widens is served once a person accepts it (the instance's accepted record,
 * which this follows too), and content that fails leaves the old one served.
 */
export function followWorkspace(options: FollowOptions): FollowedWorkspace {
  const file = options.workspaceFile;
  const follower = new Follower(options);
  // The two watches' checks run one at a time, in the order they were asked for.
  let queue: Promise<void> = Promise.resolve();
  const serially = (check: () => Promise<void>): Promise<void> => {
    const run = queue
      .then(check)
      .catch((error: unknown) =>
        options.log(
          `harness broker: warning: checking the edited workspace ${file} failed (${oneLine(String((error as Error)?.message ?? error))}); the old one is still served`,
        ),
      );
    queue = run;
    return run;
  };

  const watch = watchFileContent(file, {
    seen: follower.seen,
    onUnchanged: (digest) => options.onCheck?.({ outcome: 'unchanged', digest }),
    onWatchError: (message) =>
      options.log(
        `harness broker: warning: ${message}, so edits to the workspace ${file} are not picked up; restart the broker after editing it`,
      ),
    onContent: (content) => serially(() => follower.apply(content)),
  });
  // A person's acceptance is a new record in the instance: the file it names is checked again.
  const recordFile = join(options.instanceDir, ACCEPTED_FILE);
  const acceptance = watchFileContent(recordFile, {
    seen: recordKey(recordFile),
    onWatchError: (message) =>
      options.log(
        `harness broker: warning: ${message}, so an accepted workspace edit is served only after the workspace file is saved again or the broker restarts`,
      ),
    onContent: () => serially(async () => follower.apply(await readContent(file), true)),
  });
  return {
    current: () => follower.served,
    close: async () => {
      await Promise.all([watch.close(), acceptance.close()]);
      await queue;
    },
  };
}
