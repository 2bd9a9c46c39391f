// Approvals: the pending queue (and the history), one approval with its run's recent calls (the
// one-approval page, ./calls.ts), and a person's decision on one pending call, all through the
// host's approvals API (`approvalsOf`), as `harness approvals` and `loom approvals` (single use,
// exact arguments, expiry). A call whose command line cannot be shown (./plan.ts) can be denied,
// never approved.
import { approvalsOf, notDecidableText } from '@harness/host';
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
  const approvals = approvalsOf(ctx.store);
  ctx.watch.probe('approvals', async () => {
    const pending = await approvals.list();
    return pending.map((a) => a.id).join(',');
  });

  api.get('/approvals', async (c) => {
    const status = c.req.query('status') ?? 'pending';
    if (!STATUSES.has(status)) {
      return apiError(c, 400, ApiErrorCode.bad_request, `status must be one of ${[...STATUSES].join(', ')}`);
    }
    const list = await approvals.list({ status: status as ApprovalRecord['status'] | 'all' });
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
    const record = await approvals.get(c.req.param('id'));
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
    const record = await approvals.get(c.req.param('id'));
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
    // race. One that is gone or no longer pending is left to the decision, which says so.
    const open = await approvals.decidable(id);
    if (decision === 'approved' && open.ok) {
      const plan = approvalPlan(open.record);
      if (!plan.ok) return apiError(c, 409, ApiErrorCode.plan_unrenderable, unrenderableMessage(id, plan));
    }
    const record = open.ok || open.code === 'not_pending' ? open.record : undefined;
    const signed =
      record === undefined
        ? { ok: true as const, assertion: undefined }
        : await checkSignedDecision(ctx, c.get('session')?.id, record, decision, body?.assertion);
    if (!signed.ok) return apiError(c, signed.status, signed.code, signed.message);
    try {
      const decided = await approvals.decide(id, decision, {
        by: ctx.person,
        via: 'console',
        assertion: signed.assertion,
      });
      if (!decided.ok) {
        return apiError(
          c,
          decided.code === 'not_found' ? 404 : 409,
          ApiErrorCode.conflict,
          notDecidableText(decided),
        );
      }
      ctx.watch.publish({ topic: 'approvals', value: `decided:${decided.record.id}` });
      return c.json({ approval: decided.record });
    } catch (error) {
      return hostErrorAnswer(c, error);
    }
  });
};
