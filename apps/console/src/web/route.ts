// Hash routing: `#/<view>/<rest…>`, so the server serves one page and links work without it.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  view: string;
  rest: string[];
}

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  return { view: parts[0] || '', rest: parts.slice(1).filter((p) => p !== '') };
}

/** The current route, updated on hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** The href of a view (and its sub-path). */
export function href(view: string, ...rest: string[]): string {
  return `#/${[view, ...rest].map(encodeURIComponent).join('/')}`;
}
