// The page: a navigation bar over the registered views (./views.ts) and the current view; once the
// session ended (expired, or Log out), only that and how to log in again.
// Every value from an agent or a command is rendered as a text node, never as markup.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { logout, type SignedOut } from './api';
import { useSignedOut } from './hooks';
import { href, useRoute } from './route';
import { VIEWS } from './views';

function LogoutButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const click = async () => {
    setBusy(true);
    try {
      await logout();
    } catch (e) {
      // A session the server already ended is shown as such by the page (see api.ts).
      setError((e as Error).message);
      setBusy(false);
    }
  };
  return (
    <div class="session">
      <button type="button" class="logout" disabled={busy} onClick={click}>
        Log out
      </button>
      {error && <p role="alert">{error}</p>}
    </div>
  );
}

function Ended({ state }: { state: SignedOut }) {
  const title = state.reason === 'logged_out' ? 'Signed out' : 'Session ended';
  useEffect(() => {
    document.title = `${title} · harness console`;
  }, [title]);
  return (
    <>
      <header>
        <span class="brand">harness console</span>
      </header>
      <main id="main">
        <h1>{title}</h1>
        <p role="status">
          {state.reason === 'logged_out'
            ? 'You are signed out of this console.'
            : 'This page no longer has a console session.'}
        </p>
        <p>{state.message}</p>
      </main>
    </>
  );
}

function Shell() {
  const route = useRoute();
  const signedOut = useSignedOut();
  const current = VIEWS.find((v) => v.id === route.view) ?? VIEWS[0];
  useEffect(() => {
    if (current !== undefined && signedOut === undefined)
      document.title = `${current.title} · harness console`;
  }, [current, signedOut]);
  if (signedOut !== undefined) return <Ended state={signedOut} />;
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
        <LogoutButton />
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
