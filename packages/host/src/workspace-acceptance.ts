// What a person accepted of an instance's workspace, kept in the instance directory (which no
// confined command can see): the content last accepted, and the edit a broker holds because it
// widens authority (docs/workspace-changes.md). The person's side — review, accept, reject — is here
// too; `harness workspace` and the console call it, and a running broker follows the record.
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine, instanceArgs } from '@harness/config/instance';
import type { Workspace } from '@harness/workspace';
import { HostError, HostErrorCode } from './errors';
import { openStore, readInstance } from './instance';
import { loadHostWorkspace, readCredentials, workspaceDigest } from './packs-backend';
import {
  type AuthorityChange,
  type AuthorityDiff,
  compareAuthority,
  NO_AUTHORITY,
} from './workspace-authority';

/** The record of the workspace content last accepted for an instance. */
export const ACCEPTED_FILE = 'workspace-accepted.json';
/** The record of the edit a broker holds for a person. */
export const PENDING_FILE = 'workspace-pending.json';

/** How many hex digits of a digest a person is shown and may type. */
export const SHOWN_DIGEST = 12;

/** The audit actions of the workspace's acceptance (phase `workspace`). */
export const AcceptanceAction = {
  held: 'host:workspace_held',
  accepted: 'host:workspace_accepted',
  rejected: 'host:workspace_rejected',
} as const;

/** How content came to be accepted: the instance's first start, an edit that widened nothing, or a person. */
export type AcceptedHow = 'first_start' | 'narrowing' | 'person';

/** The content last accepted: its bytes, their digest, when, by whom and how. */
export interface AcceptedWorkspace {
  readonly digest: string;
  readonly bytes: Buffer;
  readonly at: string;
  readonly by: string;
  readonly how: AcceptedHow;
}

/** An edit a broker holds: its digest, the digest still served, and what it widens and narrows. */
export interface PendingWorkspace {
  readonly digest: string;
  readonly served: string;
  readonly at: string;
  readonly widenings: readonly AuthorityChange[];
  readonly narrowings: readonly AuthorityChange[];
}

/** Writes `text` to `file` (mode 0600) through a rename, so a reader never sees half of it. */
function writeAtomic(file: string, text: string): void {
  const next = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(next, text, { mode: 0o600 });
  renameSync(next, file);
}

/** The instance's accepted content; `undefined` before its first start. A damaged record is refused. */
export function readAccepted(instanceDir: string): AcceptedWorkspace | undefined {
  const file = join(instanceDir, ACCEPTED_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HostError(
      HostErrorCode.instance_invalid,
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}`,
      { cause: error },
    );
  }
  try {
    const record = JSON.parse(text) as Record<string, unknown>;
    const bytes = Buffer.from(String(record.content), 'base64');
    if (
      record.version === 1 &&
      typeof record.digest === 'string' &&
      workspaceDigest(bytes) === record.digest
    ) {
      const how = record.how === 'first_start' || record.how === 'narrowing' ? record.how : 'person';
      return { digest: record.digest, bytes, at: String(record.at), by: String(record.by), how };
    }
  } catch {
    // Said below.
  }
  throw new HostError(
    HostErrorCode.instance_invalid,
    `${file} is not a record of accepted workspace content (its digest does not match its content); remove it and restart the broker to accept the workspace file as it is now, after reviewing it`,
  );
}

/** Records `bytes` as the instance's accepted workspace content. */
export function writeAccepted(instanceDir: string, bytes: Uint8Array, by: string, how: AcceptedHow): string {
  const digest = workspaceDigest(bytes);
  const record = {
    version: 1,
    digest,
    at: new Date().toISOString(),
    by,
    how,
    content: Buffer.from(bytes).toString('base64'),
  };
  writeAtomic(join(instanceDir, ACCEPTED_FILE), `${JSON.stringify(record, null, 2)}\n`);
  return digest;
}

/** The edit a broker holds, as it recorded it; `undefined` when none is held. */
export function readPending(instanceDir: string): PendingWorkspace | undefined {
  try {
    const record = JSON.parse(readFileSync(join(instanceDir, PENDING_FILE), 'utf8')) as PendingWorkspace;
    return typeof record.digest === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Records the edit a broker now holds. */
export function writePending(instanceDir: string, pending: PendingWorkspace): void {
  writeAtomic(join(instanceDir, PENDING_FILE), `${JSON.stringify({ version: 1, ...pending }, null, 2)}\n`);
}

/** Removes the record of a held edit (it was accepted, rejected or replaced by one that widens nothing). */
export function clearPending(instanceDir: string): void {
  rmSync(join(instanceDir, PENDING_FILE), { force: true });
}

/** The command a person runs to accept content of this digest on this instance. */
export function acceptCommand(digest: string, instanceDir: string): string {
  return commandLine([
    'harness',
    'workspace',
    'accept',
    '--hash',
    digest.slice(0, SHOWN_DIGEST),
    ...instanceArgs(instanceDir),
  ]);
}

/** Loads workspace content for a comparison only (nothing is run): the workspace, or its first error. */
export async function loadForReview(
  workspaceFile: string,
  instanceDir: string,
  bytes: Uint8Array,
): Promise<{ ok: true; workspace: Workspace } | { ok: false; message: string }> {
  const loaded = await loadHostWorkspace(workspaceFile, bytes, instanceDir, readCredentials(instanceDir));
  if (loaded.ok) return loaded;
  const first = loaded.issues[0];
  const where =
    first?.line === undefined ? workspaceFile : `${workspaceFile}:${first.line}:${first.column ?? 1}`;
  return { ok: false, message: `${where}: ${first?.message ?? 'the workspace does not load'}` };
}

/** What the workspace file of an instance holds beside the content accepted for it. */
export type WorkspaceReview =
  /** The file is the accepted content (or none was accepted yet: the next start accepts it). */
  | { readonly state: 'accepted'; readonly file: string; readonly digest: string; readonly first: boolean }
  /** The file differs but widens nothing: a broker applies it without anyone's acceptance. */
  | ReviewDiff<'applies'>
  /** The file widens authority: a broker keeps serving the accepted content until a person accepts it. */
  | ReviewDiff<'pending'>
  /** The file does not load (so nothing changes until it does). */
  | {
      readonly state: 'invalid';
      readonly file: string;
      readonly digest: string | null;
      readonly message: string;
    };

/** A review of content that differs from the accepted one. */
export interface ReviewDiff<S extends string> {
  readonly state: S;
  readonly file: string;
  readonly digest: string;
  /** The digest of the accepted content. */
  readonly served: string;
  readonly diff: AuthorityDiff;
  /** When the accepted content no longer loads: the file is compared with nothing (all widening). */
  readonly servedProblem?: string;
  /** The exact bytes reviewed (what accepting this review records). */
  readonly bytes: Buffer;
}

/** Compares an instance's workspace file, as it is now, with the content accepted for it. */
export async function reviewWorkspace(instanceDir: string): Promise<WorkspaceReview> {
  const { workspaceFile: file } = readInstance(instanceDir);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? 'read error';
    return { state: 'invalid', file, digest: null, message: `cannot read ${file} (${why})` };
  }
  const digest = workspaceDigest(bytes);
  const accepted = readAccepted(instanceDir);
  if (accepted === undefined || accepted.digest === digest) {
    return { state: 'accepted', file, digest, first: accepted === undefined };
  }
  const next = await loadForReview(file, instanceDir, bytes);
  if (!next.ok) return { state: 'invalid', file, digest, message: next.message };
  const before = await loadForReview(file, instanceDir, accepted.bytes);
  const diff = compareAuthority(before.ok ? before.workspace : NO_AUTHORITY, next.workspace);
  return {
    state: diff.widenings.length > 0 ? 'pending' : 'applies',
    file,
    digest,
    served: accepted.digest,
    diff,
    ...(before.ok ? {} : { servedProblem: before.message }),
    bytes,
  };
}

/** A person's decision on a held edit: what was decided, or why it cannot be (a code and a message). */
export type WorkspaceDecision =
  | { readonly ok: true; readonly review: ReviewDiff<'pending' | 'applies'>; readonly restored?: boolean }
  | {
      readonly ok: false;
      readonly code: 'hash_invalid' | 'nothing_pending' | 'changed' | 'invalid';
      readonly message: string;
    };

const HEX = /^[0-9a-f]{12,64}$/;

/**
 * Accepts the instance's workspace file as it is now, if its SHA-256 begins with `hash` (the digest a
 * person was shown): a file that changed since is refused, to be reviewed anew. Records the content
 * as accepted and a `host:workspace_accepted` audit event; a running broker switches to it.
 */
export async function acceptWorkspace(
  instanceDir: string,
  options: { hash: string; by: string },
): Promise<WorkspaceDecision> {
  const hash = options.hash.toLowerCase();
  if (!HEX.test(hash)) return hashInvalid(options.hash);
  const review = await reviewWorkspace(instanceDir);
  const refused = undecidable(
    review,
    hash,
    instanceDir,
    (why) =>
      `the workspace file does not load, so it cannot be accepted: ${why}; fix it (every error: ${commandLine(['harness', 'packs', 'check', review.file])}) and review it again`,
  );
  if (refused !== undefined) return refused;
  const shown = review as ReviewDiff<'pending' | 'applies'>;
  await recordDecision(instanceDir, AcceptanceAction.accepted, 'accepted', options.by, shown);
  writeAccepted(instanceDir, shown.bytes, options.by, 'person');
  clearPending(instanceDir);
  return { ok: true, review: shown };
}

/**
 * Rejects the held edit: the workspace file is written back to the accepted content (so the broker
 * has nothing left to hold) and a `host:workspace_rejected` audit event records it. With `hash`, the
 * file must still be the content shown.
 */
export async function rejectWorkspace(
  instanceDir: string,
  options: { hash?: string | undefined; by: string },
): Promise<WorkspaceDecision> {
  const hash = options.hash?.toLowerCase();
  if (hash !== undefined && !HEX.test(hash)) return hashInvalid(hash);
  const review = await reviewWorkspace(instanceDir);
  const refused = undecidable(
    review,
    hash,
    instanceDir,
    (why) =>
      `the workspace file does not load, so nothing is held (the accepted content is still served) and nothing was written: ${why}`,
  );
  if (refused !== undefined) return refused;
  const shown = review as ReviewDiff<'pending' | 'applies'>;
  const accepted = readAccepted(instanceDir);
  await recordDecision(instanceDir, AcceptanceAction.rejected, 'rejected', options.by, shown);
  // In place, not through a rename: the file may be a link into a dotfiles repository.
  if (accepted !== undefined) writeFileSync(shown.file, accepted.bytes);
  clearPending(instanceDir);
  return { ok: true, review: shown, restored: accepted !== undefined };
}

/**
 * Why a review cannot be decided with `hash` (absent: any content), or `undefined` when it can;
 * `invalid` words the refusal of a file that does not load, given its first error.
 */
function undecidable(
  review: WorkspaceReview,
  hash: string | undefined,
  instanceDir: string,
  invalid: (why: string) => string,
): WorkspaceDecision | undefined {
  if (review.state === 'accepted') return nothingPending(review);
  if (review.state === 'invalid') return { ok: false, code: 'invalid', message: invalid(review.message) };
  if (hash !== undefined && !review.digest.startsWith(hash)) return changed(review, hash, instanceDir);
  return undefined;
}

function hashInvalid(given: string): WorkspaceDecision {
  return {
    ok: false,
    code: 'hash_invalid',
    message: `--hash takes the first ${SHOWN_DIGEST} (or more) hex digits of the SHA-256 that harness workspace pending shows, found ${JSON.stringify(given.slice(0, 70))}`,
  };
}

function nothingPending(review: { file: string; digest: string }): WorkspaceDecision {
  return {
    ok: false,
    code: 'nothing_pending',
    message: `nothing waits for acceptance: ${review.file} (sha256 ${review.digest.slice(0, SHOWN_DIGEST)}) is the accepted workspace`,
  };
}

function changed(
  review: { file: string; digest: string },
  hash: string,
  instanceDir: string,
): WorkspaceDecision {
  return {
    ok: false,
    code: 'changed',
    message: `${review.file} changed since sha256 ${hash.slice(0, SHOWN_DIGEST)} was shown: it is now sha256 ${review.digest.slice(0, SHOWN_DIGEST)}, so nothing was decided; review it anew with ${commandLine(['harness', 'workspace', 'pending', ...instanceArgs(instanceDir)])}`,
  };
}

/** The audit event of a person's decision, in the instance's store (its chain signs it). */
async function recordDecision(
  instanceDir: string,
  action: string,
  outcome: string,
  by: string,
  review: ReviewDiff<string>,
): Promise<void> {
  const store = await openStore(instanceDir);
  try {
    await store.appendAudit({
      run: 'workspace',
      actor: by,
      job: null,
      command: '*',
      action,
      phase: 'workspace',
      outcome,
      code: 'ok',
      reason: null,
      payload: {
        path: review.file,
        old_digest: review.served,
        new_digest: review.digest,
        widenings: review.diff.widenings.map((c) => c.text),
        narrowings: review.diff.narrowings.map((c) => c.text),
      },
    });
  } finally {
    await store.close();
  }
}
