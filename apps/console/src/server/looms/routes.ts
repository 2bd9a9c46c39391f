// Looms: the looms of the instance; one loom's current version, its components by stage and the
// shelf, and its receipts (its versions).
import type { LoomAnswer, LoomsAnswer } from '../../answers';
import { ApiErrorCode } from '../../api-errors';
import type { RouteModule } from '../context';
import { apiError } from '../http';

/** How many looms the list shows, and how many receipts a loom shows. */
const LIST_LIMIT = 200;
const RECEIPT_LIMIT = 100;

export const loomsRoutes: RouteModule = (api, ctx) => {
  api.get('/looms', async (c) =>
    c.json({ looms: await ctx.store.listLooms(LIST_LIMIT) } satisfies LoomsAnswer),
  );

  api.get('/looms/:id', async (c) => {
    const id = c.req.param('id');
    const view = await ctx.store.inspect(id);
    if (view === undefined) return apiError(c, 404, ApiErrorCode.not_found, 'no loom has this id');
    return c.json({
      loom: view,
      receipts: await ctx.store.loomReceipts(id, RECEIPT_LIMIT),
    } satisfies LoomAnswer);
  });
};
