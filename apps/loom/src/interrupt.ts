// Ctrl-C for the commands that follow a store: SIGINT (or SIGTERM) ends them cleanly, exit 0.

/** An AbortSignal that SIGINT or SIGTERM aborts, and the function that stops listening for them. */
export function interruptSignal(): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}
