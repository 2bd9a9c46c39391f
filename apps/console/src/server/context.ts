// What every route module is given: the instance, its store (reads), the live feed, the options.

import type { Store } from '@harness/store';
import type { Hono } from 'hono';
import type { SecurityVariables } from './security';
import type { Sessions } from './session-store';
import type { Watch } from './watch';

/** The Hono environment of the console's routes. */
export type ConsoleEnv = { Variables: SecurityVariables };

/** The console's shared state, built once at start. */
export interface ConsoleContext {
  /** The instance directory (`instance.json`, the store). */
  readonly instanceDir: string;
  /** The instance's store, opened once through `@harness/host`; routes read through it. */
  readonly store: Store;
  /** Live changes, pushed to the page over server-sent events (`GET /api/events`). */
  readonly watch: Watch;
  /** `--loom-authoring-config` (or `CF_HARNESS_LOOM_AUTHORING_CONFIG`), absolute; used by Tasks. */
  readonly authoringConfig: string | undefined;
  /** Who decides in this console, as recorded on an approval (`person:<user>`). */
  readonly person: string;
  /** The console's login sessions: logout ends one, the live feed closes when its own ends. */
  readonly sessions: Sessions;
}

/**
 * A route module: registers its routes on the `/api` router. Each view's server part is one module,
 * listed in ./routes.ts.
 */
export type RouteModule = (api: Hono<ConsoleEnv>, ctx: ConsoleContext) => void;
