// Loading state for a view: read, re-read on a live topic, and keep the last error as text.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { onLive } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  reload: () => void;
}

/** Loads with `read`, again whenever a topic in `topics` changes or `deps` change. */
export function useLive<T>(
  read: () => Promise<T>,
  topics: readonly string[],
  deps: readonly unknown[],
): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const reload = useCallback(() => {
    read().then(
      (value) => {
        setData(value);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  }, deps);
  useEffect(() => {
    reload();
    const stops = topics.map((t) => onLive(t, reload));
    return () => {
      for (const stop of stops) stop();
    };
  }, [reload, ...topics]);
  return { data, error, reload };
}
