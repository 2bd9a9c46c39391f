// Looms: one loom's current version, its components by stage and the shelf.
import type { RouteModule } from '../context';
import { API_ERROR_CODES } from '../errors';
import { apiError } from '../http';

export const loomsRoutes: RouteModule = (api, ctx) => {
  api.get('/looms/:id', async (c) => {
    const view = await ctx.store.inspect(c.req.param('id'));
    if (view === undefined) return apiError(c, 404, API_ERROR_CODES.notFound, 'no loom has this id');
    return c.json({ loom: view });
  });
};
