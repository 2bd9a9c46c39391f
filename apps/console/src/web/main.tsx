// The page: a navigation bar over the registered views (./views.ts) and the current view; once the
// session ended (expired, or Log out), only that and how to log in again.
// Every value from an agent or a command is rendered as a text node, never as markup.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { logout, type SignedOut } from './api';
import { useSignedOut } from './hooks';
import { signInWithPasskey } from './passkey';
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

/** `/login`: sign in with a passkey, then open the console where the address pointed (its fragment). */
function PasskeyLogin() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    document.title = 'Sign in · harness console';
  }, []);
  const signIn = async () => {
    setBusy(true);
    try {
      await signInWithPasskey();
      location.replace(`/${location.hash}`);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };
  return (
    <>
      <header>
        <span class="brand">harness console</span>
      </header>
      <main id="main">
        <h1>Sign in</h1>
        <p>This console signs in with a passkey enrolled on it.</p>
        <button type="button" class="sign-in" disabled={busy} onClick={signIn}>
          Sign in with a passkey
        </button>
        {error && <p role="alert">{error}</p>}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root !== null) render(location.pathname === '/login' ? <PasskeyLogin /> : <Shell />, root);
