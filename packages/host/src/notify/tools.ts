// The announcement of a server tool held back for a person's review (docs/notify.md, "Server
// tools"; rule SV-18): the first time any broker sees a (server, tool, hash) quarantined — the one
// call whose `sightTool` recorded it — each target of the workspace's `notify` block is told, signed
// and retried as an approval's notice is (./deliver.ts). A notice carries ids and hashes only, never
// the server's description or any other text of its listing: those are the server's words, and a
// notice is read by people who may act on it.

import type { NotifyConfig, NotifyTarget } from '@harness/workspace';
import { shownLine } from '../show';
import { send } from './deliver';
import { type NoticeRequest, targetRequest } from './messages';

/** What a server tool's notice announces. */
export type ToolNoticeEvent = 'server.tool_added' | 'server.tool_changed';

/** One quarantined definition, as its notice carries it. */
export interface ToolNotice {
  /** The workspace's id of the server. */
  readonly server: string;
  /** The manifest id the tool would have, `<server>.<tool>`. */
  readonly id: string;
  /** The name the server lists it under. */
  readonly upstream: string;
  /** The definition hash listed now (SV-17). */
  readonly hash: string;
  /** The hash a person accepted before, when one did: the definition changed since. */
  readonly accepted?: string;
  /** When this definition was first listed. */
  readonly firstSeen: string;
  /** The command a person reviews it with, e.g. `harness servers review rug`. */
  readonly review: string;
}

/** The JSON body a webhook receives. */
export interface WebhookToolNotice {
  event: ToolNoticeEvent;
  tool: {
    server: string;
    id: string;
    upstream: string;
    hash: string;
    accepted_hash?: string;
    first_seen: string;
    review: string;
  };
}

/** What the server backend tells of the definitions it quarantines. */
export interface ToolNotices {
  /**
   * Tells of a definition this host just recorded as quarantined for the first time anywhere:
   * announces it to `config`'s targets in the background. Returns at once; never throws.
   */
  sighted(notice: ToolNotice, config: NotifyConfig | undefined): void;
}

/** A host's tool notifier: {@link ToolNotices}, and its end. */
export interface ToolNotifier extends ToolNotices {
  /** Resolves once every announcement started so far has ended. */
  idle(): Promise<void>;
  /** Cuts attempts under way short and resolves once all ended. */
  close(): Promise<void>;
}

/** The event a notice is: no accepted definition before, or a different one. */
export const toolEvent = (n: ToolNotice): ToolNoticeEvent =>
  n.accepted === undefined ? 'server.tool_added' : 'server.tool_changed';

/** One line naming the event and the tool, e.g. `MCP server tool awaiting review: rug.get (new)`. */
export function toolHeadline(n: ToolNotice): string {
  return `MCP server tool awaiting review: ${n.id} (${n.accepted === undefined ? 'new' : 'definition changed'})`;
}

/** The plain-text lines a person reads (ntfy's message, Slack's text): ids and hashes only. */
function toolLines(n: ToolNotice): string[] {
  return [
    toolHeadline(n),
    `Server ${n.server}, listed as ${shownLine(n.upstream)}`,
    `Definition sha256 ${n.hash}`,
    ...(n.accepted === undefined ? [] : [`Accepted before: sha256 ${n.accepted}`]),
    `First seen ${n.firstSeen}`,
    `Review: ${n.review}`,
  ];
}

/** The request that tells `target` of a quarantined definition. */
export function toolNoticeRequest(
  target: NotifyTarget,
  n: ToolNotice,
  env: NodeJS.ProcessEnv,
): NoticeRequest {
  const event = toolEvent(n);
  const webhookBody: WebhookToolNotice = {
    event,
    tool: {
      server: n.server,
      id: n.id,
      upstream: n.upstream,
      hash: n.hash,
      ...(n.accepted === undefined ? {} : { accepted_hash: n.accepted }),
      first_seen: n.firstSeen,
      review: n.review,
    },
  };
  return targetRequest(
    target,
    { event, webhookBody, title: toolHeadline(n), tags: 'warning', priority: 'high', lines: toolLines(n) },
    env,
  );
}

/** Options of {@link createToolNotifier}. */
export interface ToolNotifierOptions {
  /** Where a failed delivery is told (one line, no URL, no secret). */
  readonly log?: (line: string) => void;
  /** Where the targets' secrets are read (default: this process's environment). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Creates the tool notifier of one host. Each announcement goes out in the background; one target's
 * announcements go out in the order the definitions were sighted, and a target that hangs delays no
 * other target.
 */
export function createToolNotifier(options: ToolNotifierOptions = {}): ToolNotifier {
  const env = options.env ?? process.env;
  const closing = new AbortController();
  const running = new Set<Promise<void>>();
  const queues = new Map<string, Promise<void>>();
  return {
    sighted(notice, config) {
      if (config === undefined || closing.signal.aborted) return;
      const event = toolEvent(notice);
      for (const target of config.targets) {
        const before = queues.get(target.name) ?? Promise.resolve();
        const next = before.then(async () => {
          const request = toolNoticeRequest(target, notice, env);
          const end = request.ok
            ? await send(request, config.attempts, config.timeoutMs, closing.signal)
            : { ok: false as const, attempts: 0, error: request.error };
          if (!end.ok) {
            options.log?.(
              `harness notify: ${event} of ${notice.id} to target "${target.name}" failed after ${end.attempts} attempt(s): ${end.error}`,
            );
          }
        });
        queues.set(target.name, next);
        running.add(next);
        void next.finally(() => {
          running.delete(next);
          if (queues.get(target.name) === next) queues.delete(target.name);
        });
      }
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    async close() {
      closing.abort();
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
