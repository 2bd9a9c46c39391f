// The public API of @harness/console: start a console in-process, or run its command line.
export type { ConsoleFlags } from './cli';
export {
  CONSOLE_HELP,
  consoleMain,
  parseConsoleFlags,
  resolveConsoleOptions,
  runConsole,
  TOKEN_ENV,
  untilStopped,
} from './cli';
export type { ConsoleContext, ConsoleEnv, RouteModule } from './server/context';
export { ConsoleError, ConsoleErrorCode } from './server/errors';
export { DEFAULT_LISTEN, isLoopback, parseListen } from './server/listen';
export { CONTENT_SECURITY_POLICY, CSRF_HEADER, SESSION_COOKIE } from './server/security';
export type { RunningConsole, StartConsoleOptions } from './server/start';
export { startConsole } from './server/start';
