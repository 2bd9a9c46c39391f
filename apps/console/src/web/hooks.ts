// Loading state for a view: read, re-read on a live topic, and keep the last error as text.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { currentSignedOut, inBackground, onLive, onSignedOut, type SignedOut } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  reload: () => void;
}

/**
 * Loads with `read`, again whenever a topic in `topics` changes or `deps` change. A re-read after
 * a live update is the page's own (it does not keep the session from going idle).
 */
export function useLive<T>(
  read: () => Promise<T>,
  topics: readonly string[],
  deps: readonly unknown[],
): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const load = useCallback((own: boolean) => {
    (own ? inBackground(read) : read()).then(
      (value) => {
        setData(value);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  }, deps);
  const reload = useCallback(() => load(false), [load]);
  useEffect(() => {
    load(false);
    const stops = topics.map((t) => onLive(t, () => load(true)));
    return () => {
      for (const stop of stops) stop();
    };
  }, [load, ...topics]);
  return { data, error, reload };
}

/** The session's end once it ended: expired, refused, or logged out. */
export function useSignedOut(): SignedOut | undefined {
  const [state, setState] = useState(currentSignedOut);
  useEffect(() => {
    // It may have ended between the first render and this effect.
    setState(currentSignedOut());
    return onSignedOut(setState);
  }, []);
  return state;
}
