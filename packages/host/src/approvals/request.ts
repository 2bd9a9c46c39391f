// Packs' governance gate is a synchronous, pure function of the workspace, the call and an approval
// store; the host's store is asynchronous. The gate's decision is split from the store's take:
// the gate first runs against a probe that only notes what it would ask; when it asks for an
// approval, the host takes one (or records a request) in one store transaction, and the gate runs
// again with that answer in hand. The decision stays the gate's; the single use stays the store's.
import {
  type ApprovalKey,
  type ApprovalRequestInfo,
  type ApprovalStore,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type DecideInput,
  type Decision,
  decide,
  getCommand,
  type Workspace,
} from '@harness/packs';
import type { ApprovalPlan } from '@harness/store';
import { canonicalJson, sha256 } from './canonical';
import type { PackCallContext } from './command/types';

/**
 * The store key of one approval key: what "an identical call" means across hosts. A call that names
 * its client session binds the key to it: another session's identical call has a key of its own, so
 * it asks a person anew and never consumes this one's approval.
 */
const storeKey = (k: ApprovalKey, session: string | undefined): string =>
  sha256(
    canonicalJson(
      session === undefined
        ? [k.commandId, k.agent, k.argsDigest]
        : [k.commandId, k.agent, k.argsDigest, { session }],
    ),
  );

/** What a new approval request shows a person: the call's values and argv, credentials replaced. */
export interface ApprovalPreview {
  args: Record<string, unknown>;
  argv: string[] | null;
  /** SHA-256 of the call's plan (`CallPlan` of `@harness/packs`, canonical JSON); `null`: no plan. */
  planHash: string | null;
  /** What the plan covers beyond the argv, shown with the request (its hashes); absent: no plan. */
  plan?: ApprovalPlan;
}

/** The hash an approval binds: SHA-256 (hex) of the plan's canonical JSON. */
export const planHash = (plan: unknown): string => sha256(canonicalJson(plan));

/**
 * Runs the gate for one call, taking or requesting its approval in the host's store. `preview` is
 * called only when a new request may be recorded or an approval was taken: a taken approval allows
 * the call only while the plan it would run hashes as the plan approved, else the call is denied
 * (`plan_changed`) and the approval stays used.
 */
export async function decideWithApprovals(
  workspace: Workspace,
  input: Omit<DecideInput, 'approvals'>,
  ctx: PackCallContext,
  preview: () => ApprovalPreview,
): Promise<Decision> {
  let asked: { key: ApprovalKey; info?: ApprovalRequestInfo } | undefined;
  const probe: ApprovalStore = {
    take(key) {
      asked = { key };
      return undefined;
    },
    request(key, info) {
      asked = { key, info };
      return { id: '' };
    },
  };
  const first = decide(workspace, { ...input, approvals: probe });
  if (asked === undefined) return first;
  const { key, info } = asked;
  const taken = await ctx.store.takeApproval(storeKey(key, ctx.session));
  if (taken) {
    const now = taken.plan_hash === null ? null : preview().planHash;
    if (taken.plan_hash !== null && now !== taken.plan_hash) {
      return {
        ...first,
        outcome: 'deny',
        code: 'plan_changed',
        reason: `${first.commandId}: approval ${taken.id} was given for plan ${taken.plan_hash.slice(0, 12)}, and this call would now run plan ${now?.slice(0, 12) ?? '(none)'}: the command's template, its program (or the program's bytes), its environment, its sandbox, its working directory or a project file it runs as code changed since; the approval is used up, and the identical call asks a person anew`,
        approvalId: taken.id,
      };
    }
    return decide(workspace, {
      ...input,
      approvals: {
        take: () => ({ id: taken.id }),
        request: () => ({ id: taken.id }),
      },
    });
  }
  if (info === undefined) return first;
  const shown = preview();
  const record = await ctx.store.requestApproval({
    key: storeKey(key, ctx.session),
    command: key.commandId,
    agent: key.agent,
    run: ctx.run,
    action: info.action,
    reason: info.reason,
    argNames: Object.keys(input.args ?? {}).sort(),
    args: shown.args,
    argv: shown.argv,
    tier: info.tier,
    ...(shown.planHash === null ? {} : { planHash: shown.planHash }),
    ...(shown.plan === undefined ? {} : { plan: shown.plan }),
    ...(ctx.session === undefined ? {} : { session: ctx.session }),
    ttlMs:
      ctx.approvalTtlMs ??
      getCommand(workspace, key.commandId)?.approvalTimeoutMs ??
      DEFAULT_APPROVAL_TIMEOUT_MS,
  });
  ctx.notices?.requested(record, workspace.notify);
  return decide(workspace, {
    ...input,
    approvals: { take: () => undefined, request: () => ({ id: record.id }) },
  });
}
