// What every route module is given: the instance, its store (reads), the live feed, the options.

import type { Store } from '@harness/store';
import type { Hono } from 'hono';
import type { Ceremonies } from './passkeys/ceremonies';
import type { PasskeyStore } from './passkeys/store';
import type { RateLimiter } from './rate-limit';
import type { SecurityVariables } from './security';
import type { Sessions } from './session-store';
import type { Site } from './site';
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
  /** Where people reach the console (origin, TLS, relying party id), and whether other machines can. */
  readonly site: Site;
  /** The enrolled passkeys (`<instance>/console-passkeys.db`). */
  readonly passkeys: PasskeyStore;
  /** The passkey challenges and decision nonces handed out and not yet answered. */
  readonly ceremonies: Ceremonies;
  /** The token buckets of the login, passkey and decision requests. */
  readonly limiter: RateLimiter;
}

/**
 * A route module: registers its routes on the `/api` router. Each view's server part is one module,
 * listed in ./routes.ts.
 */
export type RouteModule = (api: Hono<ConsoleEnv>, ctx: ConsoleContext) => void;
