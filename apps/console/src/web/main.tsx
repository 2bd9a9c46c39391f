// The page: a navigation bar over the registered views (./views.ts) and the current view.
// Every value from an agent or a command is rendered as a text node, never as markup.
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { href, useRoute } from './route';
import { VIEWS } from './views';

function Shell() {
  const route = useRoute();
  const current = VIEWS.find((v) => v.id === route.view) ?? VIEWS[0];
  useEffect(() => {
    if (current !== undefined) document.title = `${current.title} · harness console`;
  }, [current]);
  if (current === undefined) return null;
  const View = current.component;
  return (
    <>
      <header>
        <span class="brand">harness console</span>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map((v) => (
              <li key={v.id}>
                <a href={href(v.id)} aria-current={v.id === current.id ? 'page' : undefined}>
                  {v.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main">
        <h1>{current.title}</h1>
        <View route={route} />
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<Shell />, root);
