// THE view-registration point of the page: one entry per navigation item, in order. A view's
// component lives in its own file under ./views/ (approvals*, audit*, looms*, tasks*, runs*, servers* …).
import type { FunctionComponent } from 'preact';
import type { Route } from './route';
import { ApprovalsView } from './views/approvals';
import { AuditView } from './views/audit';
import { LoomsView } from './views/looms';
import { PasskeysView } from './views/passkeys';
import { RunsView } from './views/runs';
import { ServersView } from './views/servers';
import { TasksView } from './views/tasks';

export interface ViewEntry {
  /** The first segment of the hash route, `#/<id>`. */
  id: string;
  /** The navigation label and the page heading. */
  title: string;
  component: FunctionComponent<{ route: Route }>;
}

export const VIEWS: readonly ViewEntry[] = [
  { id: 'approvals', title: 'Approvals', component: ApprovalsView },
  { id: 'audit', title: 'Audit', component: AuditView },
  { id: 'looms', title: 'Looms', component: LoomsView },
  { id: 'tasks', title: 'Tasks', component: TasksView },
  { id: 'runs', title: 'Runs', component: RunsView },
  { id: 'servers', title: 'Servers', component: ServersView },
  { id: 'passkeys', title: 'Passkeys', component: PasskeysView },
];
