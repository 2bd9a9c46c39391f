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

function sameRoute(a: Route, b: Route): boolean {
  return a.view === b.view && a.rest.length === b.rest.length && a.rest.every((p, i) => p === b.rest[i]);
}

/** The current route, updated on hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () =>
      setRoute((now) => {
        const next = parseRoute(location.hash);
        return sameRoute(now, next) ? now : next;
      });
    addEventListener('hashchange', on);
    // The hash may have changed between the first render and this effect (a link followed while the
    // page loaded): that change fired no event this listener saw, so read it once now.
    on();
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** The href of a view (and its sub-path). */
export function href(view: string, ...rest: string[]): string {
  return `#/${[view, ...rest].map(encodeURIComponent).join('/')}`;
}
