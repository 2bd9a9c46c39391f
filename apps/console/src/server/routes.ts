// THE route-registration point: every view's server part is one RouteModule, mounted under /api.
// Add a module by importing it and listing it below (one line each); keep a view's routes in its own
// folder (approvals/, audit/, looms/, tasks/, runs/ …) so views never share a file.
import { approvalsRoutes } from './approvals/routes';
import { auditRoutes } from './audit/routes';
import type { RouteModule } from './context';
import { liveRoutes } from './live';
import { loomsRoutes } from './looms/routes';
import { runsRoutes } from './runs/routes';
import { sessionRoutes } from './session';
import { tasksRoutes } from './tasks/routes';

export const ROUTE_MODULES: readonly RouteModule[] = [
  sessionRoutes,
  liveRoutes,
  approvalsRoutes,
  auditRoutes,
  loomsRoutes,
  tasksRoutes,
  runsRoutes,
];
