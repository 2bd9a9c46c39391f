// THE route-registration point: every view's server part is one RouteModule, mounted under /api.
// Add a module by importing it and listing it below (one line each); keep a view's routes in its own
// folder (approvals/, audit/, looms/, tasks/, runs/, servers/ …) so views never share a file.
import { approvalsRoutes } from './approvals/routes';
import { signedDecisionRoutes } from './approvals/signed-decision';
import { auditRoutes } from './audit/routes';
import type { RouteModule } from './context';
import { liveRoutes } from './live';
import { loomsRoutes } from './looms/routes';
import { passkeysRoutes } from './passkeys/routes';
import { runsRoutes } from './runs/routes';
import { serversRoutes } from './servers/routes';
import { sessionRoutes } from './session';
import { tasksRoutes } from './tasks/routes';

export const ROUTE_MODULES: readonly RouteModule[] = [
  sessionRoutes,
  liveRoutes,
  approvalsRoutes,
  signedDecisionRoutes,
  passkeysRoutes,
  auditRoutes,
  loomsRoutes,
  tasksRoutes,
  runsRoutes,
  serversRoutes,
];
