// What each kind of target is sent for one event of one approval (docs/notify.md, "What is sent").
// Argument values and argv go only to a target that says `include_args: true`. A secret is read
// from the environment here, when the request is built, and goes only into that request.

import type { ApprovalRecord, NoticeEvent } from '@harness/store';
import type { NotifyTarget } from '@harness/workspace';
import { shownLine } from '../show';

/** The approval as a notice carries it. */
export interface NoticeApproval {
  id: string;
  command: string;
  args?: Record<string, unknown> | null;
  argv?: string[] | null;
  /** The command's display line with the call's values (with `include_args` only). */
  display?: string | null;
  /** What the command's preview showed (with `include_args` only). */
  preview?: ApprovalRecord['preview'];
  plan_hash: string | null;
  agent: string;
  run: string;
  tier: string | null;
  reason: string;
  created_at: string;
  expires_at: string;
  status: ApprovalRecord['status'];
  decided_by?: string;
}

/** The JSON body a webhook receives. */
export interface WebhookNotice {
  event: NoticeEvent;
  approval: NoticeApproval;
  link?: string;
}

/** One HTTP request to send (signed per attempt for a webhook), or why none can be. */
export type NoticeRequest =
  | {
      ok: true;
      url: string;
      headers: Record<string, string>;
      body: string;
      /** The webhook secret the body is signed with at each attempt. */
      secret?: string;
    }
  | { ok: false; error: string };

/** The link to the console's one-approval page, when the workspace names the console. */
export function approvalLink(base: string | undefined, id: string): string | undefined {
  if (base === undefined) return undefined;
  const url = new URL(base);
  url.hash = `/approvals/${encodeURIComponent(id)}`;
  return url.toString();
}

/** The approval's fields a notice carries: values and argv only when the target includes them. */
export function noticeApproval(record: ApprovalRecord, includeArgs: boolean): NoticeApproval {
  return {
    id: record.id,
    command: record.command,
    ...(includeArgs
      ? { args: record.args, argv: record.argv, display: record.display, preview: record.preview }
      : {}),
    plan_hash: record.plan_hash,
    agent: record.agent,
    run: record.run,
    tier: record.tier,
    reason: record.reason,
    created_at: record.created_at,
    expires_at: record.expires_at,
    status: record.status,
    ...(record.decided_by === null ? {} : { decided_by: record.decided_by }),
  };
}

const HEADLINES: Record<NoticeEvent, string> = {
  'approval.pending': 'Approval needed',
  'approval.approved': 'Approved',
  'approval.denied': 'Denied',
  'approval.expired': 'Expired',
};

/** One line naming the event and the call, e.g. `Approval needed: git.push by agent dev`. */
export function headline(event: NoticeEvent, record: ApprovalRecord): string {
  const by = record.decided_by !== null && event !== 'approval.pending' ? ` (${record.decided_by})` : '';
  return `${HEADLINES[event]}: ${record.command} by agent ${record.agent}${by}`;
}

/** Lines of a preview a text message carries; the console's page shows all of it. */
export const NOTICE_PREVIEW_LINES = 10;

/**
 * What the call runs, for a target with `include_args`: the command's display line (else its argv),
 * then the first {@link NOTICE_PREVIEW_LINES} lines of what its preview showed, hidden characters escaped.
 */
function callLines(record: ApprovalRecord): string[] {
  const runs =
    record.display != null
      ? [`Runs: ${shownLine(record.display)}`]
      : record.argv !== null
        ? [`Runs: ${JSON.stringify(record.argv)}`]
        : [];
  const p = record.preview ?? null;
  if (p === null) return runs;
  if (!p.ok) return [...runs, `Preview (${p.command}): ${shownLine(p.text)}`];
  const lines = p.text === '' ? ['(no output)'] : p.text.split('\n');
  const kept = lines.slice(0, NOTICE_PREVIEW_LINES).map((l) => `  ${shownLine(l)}`);
  const more = lines.length > kept.length || p.truncated ? ['  …'] : [];
  return [...runs, `Preview (${p.command}):`, ...kept, ...more];
}

/** The plain-text lines a person reads (ntfy's message, Slack's text). */
function textLines(
  event: NoticeEvent,
  record: ApprovalRecord,
  includeArgs: boolean,
  link?: string,
): string[] {
  return [
    headline(event, record),
    `Why: ${record.reason}`,
    ...(includeArgs ? callLines(record) : []),
    `Tier ${record.tier ?? 'unknown'}, run ${record.run}, plan ${record.plan_hash?.slice(0, 12) ?? '(none)'}`,
    ...(event === 'approval.pending' ? [`Expires ${record.expires_at}`] : []),
    `Approval ${record.id}`,
    ...(link === undefined ? [] : [link]),
  ];
}

/** A variable's value, or the reason a target cannot be sent to (no value is ever in the reason). */
function fromEnv(env: NodeJS.ProcessEnv, name: string): string | { error: string } {
  const value = env[name];
  return value === undefined || value === '' ? { error: `${name} is not set` } : value;
}

/** What one notice says, in the form each kind of target takes it. */
export interface NoticeContent {
  /** The event, sent as the webhook's `x-harness-event` header. */
  readonly event: string;
  /** The webhook's JSON body. */
  readonly webhookBody: unknown;
  /** ntfy's title (kept to printable ASCII here), tags and priority. */
  readonly title: string;
  readonly tags: string;
  readonly priority: 'high' | 'default';
  /** The lines a person reads: ntfy's message, Slack's text. */
  readonly lines: readonly string[];
  /** Where ntfy's notice leads when tapped. */
  readonly link?: string;
}

/** The request that tells `target` of `content`; `env` holds the secrets the target names. */
export function targetRequest(
  target: NotifyTarget,
  content: NoticeContent,
  env: NodeJS.ProcessEnv,
): NoticeRequest {
  switch (target.kind) {
    case 'webhook': {
      const secret = fromEnv(env, target.secretEnv);
      if (typeof secret !== 'string') return { ok: false, ...secret };
      return {
        ok: true,
        url: target.url,
        headers: { 'content-type': 'application/json', 'x-harness-event': content.event },
        body: JSON.stringify(content.webhookBody),
        secret,
      };
    }
    case 'ntfy': {
      const token = target.tokenEnv === undefined ? undefined : fromEnv(env, target.tokenEnv);
      if (token !== undefined && typeof token !== 'string') return { ok: false, ...token };
      return {
        ok: true,
        url: target.url,
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          // ntfy reads header values as Latin-1 unless RFC 2047-encoded: keep the title ASCII.
          Title: asciiOnly(content.title),
          Tags: content.tags,
          Priority: content.priority,
          ...(content.link === undefined ? {} : { Click: content.link }),
          ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
        },
        body: content.lines.join('\n'),
      };
    }
    case 'slack': {
      const url = fromEnv(env, target.urlEnv);
      if (typeof url !== 'string') return { ok: false, ...url };
      // Slack reads &, < and > as markup in text.
      const text = content.lines
        .join('\n')
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;');
      return {
        ok: true,
        url,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }),
      };
    }
  }
}

/** The request that tells `target` of `event`; `env` holds the secrets the target names. */
export function noticeRequest(
  target: NotifyTarget,
  event: NoticeEvent,
  record: ApprovalRecord,
  linkBase: string | undefined,
  env: NodeJS.ProcessEnv,
): NoticeRequest {
  const link = approvalLink(linkBase, record.id);
  const webhookBody: WebhookNotice = {
    event,
    approval: noticeApproval(record, target.includeArgs),
    ...(link === undefined ? {} : { link }),
  };
  return targetRequest(
    target,
    {
      event,
      webhookBody,
      title: headline(event, record),
      tags: event === 'approval.pending' ? 'lock' : event.slice('approval.'.length),
      priority: event === 'approval.pending' ? 'high' : 'default',
      // ntfy's tap opens the link; Slack's text carries it as a line.
      lines: textLines(event, record, target.includeArgs, target.kind === 'slack' ? link : undefined),
      ...(link === undefined || target.kind !== 'ntfy' ? {} : { link }),
    },
    env,
  );
}

/** `text` with every character outside printable ASCII replaced by `?`. */
function asciiOnly(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}
