// The delivery log of one approval's announcements (docs/notify.md, "The delivery log"): which
// notify target was told of which event, and how the delivery went. What the one-approval page
// shows under "Notifications".
import { approvalsOf } from '@harness/host';
import type { ApprovalNoticesAnswer } from '../../answers';
import { ApiErrorCode } from '../../api-errors';
import type { RouteModule } from '../context';
import { apiError } from '../http';

export const approvalNoticesRoutes: RouteModule = (api, ctx) => {
  const approvals = approvalsOf(ctx.store);
  api.get('/approvals/:id/notices', async (c) => {
    const id = c.req.param('id');
    if ((await approvals.get(id)) === undefined) {
      return apiError(c, 404, ApiErrorCode.not_found, 'no approval has this id');
    }
    return c.json({ notices: await ctx.store.listNotices(id) } satisfies ApprovalNoticesAnswer);
  });
};
