// Approvals: the pending queue (and the history), one approval with its run's recent calls (the
// one-approval page, ./calls.ts), and a person's decision on one pending call,
// through the same host API as `loom approvals approve|deny` (single use, exact arguments). A call
// whose command line cannot be shown (./plan.ts) can be denied, never approved.
import { decideApproval } from '@harness/host';
import type { ApprovalRecord } from '@harness/store';
import type { ApprovalCallsAnswer, ApprovalOneAnswer, ApprovalsAnswer } from '../../answers';
import { ApiErrorCode } from '../../api-errors';
import type { RouteModule } from '../context';
import { apiError, hostErrorAnswer } from '../http';
import { recentCalls } from './calls';
import { approvalNoticesRoutes } from './notices';
import { approvalOutcomes } from './outcome';
import { approvalPlan, unrenderableMessage } from './plan';
import { checkSignedDecision } from './signed-decision';

const STATUSES = new Set(['pending', 'approved', 'denied', 'consumed', 'expired', 'all']);

export const approvalsRoutes: RouteModule = (api, ctx) => {
  ctx.watch.probe('approvals', async () => {
    const pending = await ctx.store.listApprovals();
    return pending.map((a) => a.id).join(',');
  });

  api.get('/approvals', async (c) => {
    const status = c.req.query('status') ?? 'pending';
    if (!STATUSES.has(status)) {
      return apiError(c, 400, ApiErrorCode.bad_request, `status must be one of ${[...STATUSES].join(', ')}`);
    }
    const list = await ctx.store.listApprovals({ status: status as ApprovalRecord['status'] | 'all' });
    const outcomes = await approvalOutcomes(ctx.store, list);
    return c.json({
      approvals: list.map((a) => ({
        ...a,
        outcome: outcomes.get(a.id) ?? null,
        plan: approvalPlan(a),
        covers: a.plan,
      })),
    } satisfies ApprovalsAnswer);
  });

  api.get('/approvals/:id', async (c) => {
    const record = await ctx.store.getApproval(c.req.param('id'));
    if (record === undefined) return apiError(c, 404, ApiErrorCode.not_found, 'no approval has this id');
    const outcomes = await approvalOutcomes(ctx.store, [record]);
    return c.json({
      approval: {
        ...record,
        outcome: outcomes.get(record.id) ?? null,
        plan: approvalPlan(record),
        covers: record.plan,
      },
    } satisfies ApprovalOneAnswer);
  });

  api.get('/approvals/:id/calls', async (c) => {
    const record = await ctx.store.getApproval(c.req.param('id'));
    if (record === undefined) return apiError(c, 404, ApiErrorCode.not_found, 'no approval has this id');
    return c.json((await recentCalls(ctx.store, record)) satisfies ApprovalCallsAnswer);
  });

  approvalNoticesRoutes(api, ctx);

  api.post('/approvals/:id/decision', async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as
      | { decision?: unknown; assertion?: unknown }
      | undefined;
    const decision = body?.decision;
    if (decision !== 'approved' && decision !== 'denied') {
      return apiError(
        c,
        400,
        ApiErrorCode.bad_request,
        'the body must be {"decision":"approved"} or {"decision":"denied"}',
      );
    }
    const id = c.req.param('id');
    // A recorded argv and plan hash never change, so checking them before the decision is not a
    // race. One that is gone or no longer pending is left to decideApproval, which says so.
    const pending = await ctx.store.getApproval(id);
    if (decision === 'approved') {
      const plan = pending?.status === 'pending' ? approvalPlan(pending) : undefined;
      if (plan !== undefined && !plan.ok) {
        return apiError(c, 409, ApiErrorCode.plan_unrenderable, unrenderableMessage(id, plan));
      }
    }
    const signed =
      pending === undefined
        ? { ok: true as const, assertion: undefined }
        : await checkSignedDecision(ctx, c.get('session')?.id, pending, decision, body?.assertion);
    if (!signed.ok) return apiError(c, signed.status, signed.code, signed.message);
    try {
      const record = await decideApproval(
        ctx.instanceDir,
        id,
        decision,
        ctx.person,
        undefined,
        'console',
        signed.assertion,
      );
      ctx.watch.publish({ topic: 'approvals', value: `decided:${record.id}` });
      return c.json({ approval: record });
    } catch (error) {
      return hostErrorAnswer(c, error);
    }
  });
};
