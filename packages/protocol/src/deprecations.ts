// The broker socket's path was first called the queue path. Configurations, options and flags in the
// wild still say `queuePath` or `--queue`; every place that still reads the old name takes it as the
// new one and warns with this one code and wording (docs/protocol.md, "Routing").

/** The `code` of the DeprecationWarning raised where the old name `queuePath` (or `--queue`) is read. */
export const QUEUE_PATH_DEPRECATION = 'HARNESS_DEP_QUEUE_PATH';

/** The warning's text: `<old> is deprecated: rename it to <now> (same value).` */
export function queuePathDeprecation(old: string, now: string): string {
  return `${old} is deprecated: rename it to ${now} (same value).`;
}

type WarningProcess = { emitWarning?: (message: string, options: { type: string; code: string }) => void };

const warned = new Set<string>();

/**
 * Raises the {@link QUEUE_PATH_DEPRECATION} warning for reading `old` as `now`, once per process for
 * each old name (a file read again, or a broker started twice, warns once); a no-op where there is
 * no `process` (a browser).
 */
export function warnQueuePath(old: string, now: string): void {
  if (warned.has(old)) return;
  warned.add(old);
  const proc = (globalThis as { process?: WarningProcess }).process;
  proc?.emitWarning?.(queuePathDeprecation(old, now), {
    type: 'DeprecationWarning',
    code: QUEUE_PATH_DEPRECATION,
  });
}
