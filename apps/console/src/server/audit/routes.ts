// Audit: every event, paged and filtered, and one event's detail.
import type { AuditEventAnswer, AuditPageAnswer } from '../../answers';
import { ApiErrorCode } from '../../api-errors';
import type { RouteModule } from '../context';
import { apiError } from '../http';
import { type AuditFilter, auditEvent, auditPage, MAX_PAGE } from './query';

const TEXT_FILTERS = ['agent', 'command', 'status', 'from', 'to'] as const;

export const auditRoutes: RouteModule = (api, ctx) => {
  ctx.watch.probe('audit', async () => String((await ctx.store.tailAudit(1))[0]?.seq ?? 0));

  api.get('/audit', async (c) => {
    const limitText = c.req.query('limit') ?? '100';
    const beforeText = c.req.query('before');
    if (!/^[1-9][0-9]{0,3}$/.test(limitText) || Number(limitText) > MAX_PAGE) {
      return apiError(c, 400, ApiErrorCode.bad_request, `limit must be 1–${MAX_PAGE}, found ${limitText}`);
    }
    if (beforeText !== undefined && !/^[1-9][0-9]{0,15}$/.test(beforeText)) {
      return apiError(c, 400, ApiErrorCode.bad_request, 'before must be an event seq (a positive integer)');
    }
    const filter: AuditFilter = { limit: Number(limitText) };
    if (beforeText !== undefined) filter.before = Number(beforeText);
    for (const name of TEXT_FILTERS) {
      const value = c.req.query(name);
      if (value !== undefined && value !== '') filter[name] = value;
    }
    return c.json((await auditPage(ctx.store, filter)) satisfies AuditPageAnswer);
  });

  api.get('/audit/:seq', async (c) => {
    const seqText = c.req.param('seq');
    if (!/^[1-9][0-9]{0,15}$/.test(seqText)) {
      return apiError(c, 400, ApiErrorCode.bad_request, 'an event is named by its seq (a positive integer)');
    }
    const seq = Number(seqText);
    const event = await auditEvent(ctx.store, seq);
    if (event === undefined) return apiError(c, 404, ApiErrorCode.not_found, `no audit event has seq ${seq}`);
    return c.json({ event } satisfies AuditEventAnswer);
  });
};
