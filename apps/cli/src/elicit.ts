// `harness serve --approvals elicit`: a call the host holds for a person's approval is put to that
// person in their own MCP client (an elicitation request), showing the exact values and argv the host
// recorded for it. The decision goes through the host's one approval API (single use, bound to the
// exact arguments), and the identical call is then made again once, so the host's answer to it is
// what the model reads. A client without elicitation, a cancelled request or one nobody answers
// leaves the approval pending for the console or `loom approvals`, exactly as without the flag.
// Where the host waits for the decision (a pack's `approval_wait`), the person is asked as soon as
// the call's progress names its approval, while the call waits: the waiting call then runs (or is
// refused) itself, and a cancelled question leaves it waiting.

import type { CallOutcome, HarnessTool, ToolContext, ToolProgress, ToolResult } from '@harness/commands';
import type { Decidable } from '@harness/host';
import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';

/** Who decides a pending approval of `harness serve`: the console or CLI (`queue`), or the client too. */
export const APPROVAL_MODES = ['queue', 'elicit'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** The person's answer to one elicitation request (MCP's three actions). */
export type ElicitAction = 'accept' | 'decline' | 'cancel';

/**
 * The approval question's form: one required yes/no. Some clients accept a form with no field on
 * their own, with no person asked (Codex does in its full-access mode): an accepted form without
 * `approve: true` approves nothing.
 */
export const APPROVAL_FORM: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    approve: {
      type: 'boolean',
      title: 'Approve this exact call',
      description: 'true runs this call once; false denies it',
    },
  },
  required: ['approve'],
};

/** What an answer to {@link APPROVAL_FORM} decides: an accept that is not an explicit yes or no decides nothing. */
export function approvalAction(
  action: ElicitAction,
  content: Record<string, unknown> | undefined,
): ElicitAction {
  if (action !== 'accept') return action;
  if (content?.approve === true) return 'accept';
  return content?.approve === false ? 'decline' : 'cancel';
}

/** How serve reaches the person: through the connected MCP client, while it supports elicitation. */
export interface PersonChannel {
  /** True when the client declared form elicitation. */
  available(): boolean;
  /** What the host records as the decider, e.g. `elicitation:claude-code`. */
  decidedBy(): string;
  /**
   * Puts `message` to the person; rejects when the client fails, nobody answers in `timeoutMs`, or
   * `stop` aborts (the question is withdrawn).
   */
  ask(message: string, ctx: ToolContext, timeoutMs: number, stop?: AbortSignal): Promise<ElicitAction>;
}

/** The part of an approval record a person is shown (credentials already `[redacted]` by the host). */
export interface ShownApproval {
  id: string;
  command: string;
  agent: string;
  run: string;
  tier: string | null;
  reason: string;
  args: Record<string, unknown> | null;
  argv: string[] | null;
  /** The command's display line with the call's values; absent or `null`: it declares none. */
  display?: string | null;
  /** What the command's preview printed when the call was held; absent or `null`: none. */
  preview?: { command: string; ok: boolean; text: string; truncated: boolean } | null;
  status: string;
  expires_at: string;
}

/** Lines of a preview the question carries; the console and `harness approvals show` have them all. */
const ASKED_PREVIEW_LINES = 10;

// C0 and C1 controls, DEL, zero-width and bidirectional marks, the BOM, line and paragraph separators.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

/** `text` on one line: every hidden character (a newline too) written as its `\uXXXX` escape. */
const oneLine = (text: string): string =>
  text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The display line and the preview's first lines, where the command declares them. */
function judgedLines(a: ShownApproval): string[] {
  const runs = a.display == null ? [] : [`runs: ${oneLine(a.display)}`];
  const p = a.preview ?? null;
  if (p === null) return runs;
  if (!p.ok) return [...runs, `preview (${p.command}): ${oneLine(p.text)}`];
  const lines = p.text === '' ? ['(no output)'] : p.text.split('\n');
  const kept = lines.slice(0, ASKED_PREVIEW_LINES).map((l) => `  ${oneLine(l)}`);
  return [
    ...runs,
    `preview (${p.command}):`,
    ...kept,
    ...(kept.length < lines.length || p.truncated ? ['  …'] : []),
  ];
}

/** The host's approval API, on the instance serve runs against. */
export interface ApprovalApi {
  /** Whether approval `id` may be decided now (pending, with time left), and for how long. */
  decidable(id: string): Promise<Decidable>;
  /** Records the person's decision; one that can no longer be decided is left as it is. */
  decide(id: string, decision: 'approved' | 'denied', by: string): Promise<unknown>;
}

/**
 * The message a person reads: the command, its tier, its display line and what its preview printed
 * (hidden characters escaped, so no value starts a line of its own), every value and the argv,
 * verbatim as JSON.
 */
export function approvalMessage(a: ShownApproval): string {
  const values =
    a.args === null
      ? '  (not recorded)'
      : Object.entries(a.args)
          .map(([name, value]) => `  ${name}: ${JSON.stringify(value)}`)
          .join('\n') || '  (none)';
  return [
    `Approve this exact call to run once?`,
    `command: ${a.command}${a.tier ? ` (${a.tier} tier)` : ''}`,
    `agent: ${a.agent}, run: ${a.run}`,
    `why: ${a.reason}`,
    ...judgedLines(a),
    `arguments:`,
    values,
    `argv: ${a.argv === null ? '(does not render: the host will refuse it)' : JSON.stringify(a.argv)}`,
    `approval ${a.id}, expires ${a.expires_at}`,
    `Approve (yes) runs this call once; No, or Decline, denies it; Cancel leaves it pending for the console or \`harness approvals\`.`,
  ].join('\n');
}

/**
 * The approval a call's result waits for: the id of the approval its host held it for, while a
 * person may still give it (not one a person denied or nobody gave in time); `undefined` otherwise.
 */
export function heldApproval(result: ToolResult | undefined): string | undefined {
  if (result?.status !== 'executed' || result.entry.status !== 'admitted') return undefined;
  if (result.entry.kind !== 'held' || result.outcome.withheld === true) return undefined;
  return result.outcome.code === 'approval_required' ? result.entry.value?.approval?.id : undefined;
}

// The longest a person is waited for, whatever the approval's own lifetime.
const MAX_WAIT_MS = 15 * 60 * 1000;

/** What putting one approval to the person came to: a decision recorded, or none. */
type Asked = 'decided' | 'undecided';

/** Asks the person about approval `id` while it is pending, and records their accept or decline. */
async function personDecides(
  channel: PersonChannel,
  api: ApprovalApi,
  id: string,
  ctx: ToolContext,
  stop?: AbortSignal,
): Promise<Asked> {
  const open = await api.decidable(id);
  if (!open.ok) return 'undecided';
  let action: ElicitAction;
  try {
    action = await channel.ask(approvalMessage(open.record), ctx, Math.min(open.msLeft, MAX_WAIT_MS), stop);
  } catch {
    return 'undecided'; // The client failed, the call was cancelled or nobody answered: still pending.
  }
  if (action === 'cancel') return 'undecided';
  // Decided (or expired) elsewhere meanwhile, or a store that failed: the host's answer to the call
  // says how it stands.
  await api
    .decide(open.record.id, action === 'accept' ? 'approved' : 'denied', channel.decidedBy())
    .catch(() => undefined);
  return 'decided';
}

/**
 * The questions put to the person while a call waits at its host for their decision: each approval
 * a progress report names is asked about once, one question at a time, in the order the waits began.
 */
class WaitingAsks {
  readonly #asks = new Map<string, { asked: Promise<Asked>; stop: AbortController }>();
  readonly #ask: (id: string, stop: AbortSignal) => Promise<Asked>;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(ask: (id: string, stop: AbortSignal) => Promise<Asked>) {
    this.#ask = ask;
  }

  /** The caller's progress observer, wrapped: a report naming an approval puts it to the person. */
  observer(next: ToolContext['onProgress']): (progress: ToolProgress) => void {
    return (progress) => {
      const id = progress.approval?.id;
      if (id !== undefined && !this.#asks.has(id)) {
        const stop = new AbortController();
        const asked = this.#queue
          .then(() => (stop.signal.aborted ? 'undecided' : this.#ask(id, stop.signal)))
          .catch((): Asked => 'undecided');
        this.#queue = asked;
        this.#asks.set(id, { asked, stop });
      }
      next?.(progress);
    };
  }

  /** The question about approval `id`, when one was put. */
  about(id: string): Promise<Asked> | undefined {
    return this.#asks.get(id)?.asked;
  }

  /** Withdraws every question but those about `keep`: the calls they were about have answered. */
  withdrawAllBut(keep: readonly string[]): void {
    for (const [id, { stop }] of this.#asks) if (!keep.includes(id)) stop.abort();
  }
}

/**
 * Wraps `run_command` / `run_read_command` so a call held for approval is put to the person. A lone
 * call is asked about and, once decided, made again identically; in a batch each held call is asked
 * about in order and made again alone, its result taking the held one's place. A call whose host
 * waits for the decision is asked about while it waits, and is made again only when its wait ended
 * before the person answered.
 */
export function withElicitation(tool: HarnessTool, channel: PersonChannel, api: ApprovalApi): HarnessTool {
  const settle = async (
    held: ToolResult,
    approvalId: string,
    again: () => Promise<ToolResult>,
    ctx: ToolContext,
    asks: WaitingAsks,
  ): Promise<ToolResult> => {
    const asked = asks.about(approvalId) ?? personDecides(channel, api, approvalId, ctx);
    return (await asked) === 'decided' ? again() : held;
  };
  return {
    ...tool,
    async execute(input, ctx) {
      if (!channel.available()) return tool.execute(input, ctx);
      const asks = new WaitingAsks((id, stop) => personDecides(channel, api, id, ctx, stop));
      const result = await tool.execute(input, { ...ctx, onProgress: asks.observer(ctx.onProgress) });
      const lone = heldApproval(result);
      if (lone !== undefined) {
        asks.withdrawAllBut([lone]);
        return settle(result, lone, () => tool.execute(input, ctx), ctx, asks);
      }
      const calls = (input as { calls?: unknown } | null)?.calls;
      if (result.status !== 'batch' || !Array.isArray(calls)) {
        asks.withdrawAllBut([]);
        return result;
      }
      const settled: ToolResult[] = [...result.results];
      asks.withdrawAllBut(settled.map(heldApproval).filter((id): id is string => id !== undefined));
      for (let i = 0; i < settled.length; i++) {
        const id = heldApproval(settled[i]);
        if (id === undefined || calls[i] === undefined) continue;
        settled[i] = await settle(settled[i] as ToolResult, id, () => tool.execute(calls[i], ctx), ctx, asks);
      }
      // A call made again alone answers with one call's result: a batch entry's type.
      return { ...result, results: settled as CallOutcome[] };
    },
  };
}
