// Passkeys: the console's enrolled passkeys (label, kind, when made and last used) and a form to
// add one from this session. With a passkey, decisions are signed with it; on a console reached
// from other machines, signing in and deciding then need it (docs/console.md, "Passkeys").
import { useState } from 'preact/hooks';
import { when } from '../format';
import { useLive } from '../hooks';
import { enrolPasskey, passkeyStatus } from '../passkey';

function AddPasskey({ onDone }: { onDone: () => void }) {
  const [label, setLabel] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ error: boolean; text: string } | undefined>(undefined);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await enrolPasskey(label);
      setMessage({ error: false, text: `Passkey “${label.trim()}” added.` });
      setLabel('');
      onDone();
    } catch (error) {
      setMessage({ error: true, text: (error as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="add-passkey" onSubmit={submit}>
      <label for="passkey-label">Label</label>
      <input
        id="passkey-label"
        value={label}
        maxLength={64}
        required
        placeholder="e.g. phone"
        onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
      />
      <button type="submit" disabled={busy || label.trim() === ''}>
        Add a passkey
      </button>
      {message && <p role={message.error ? 'alert' : 'status'}>{message.text}</p>}
    </form>
  );
}

export function PasskeysView() {
  const { data, error, reload } = useLive(passkeyStatus, [], []);
  if (error) return <p role="alert">{error}</p>;
  if (data === undefined) return <p>Loading…</p>;
  return (
    <>
      <p>
        {data.signingRequired
          ? 'Every decision made in this console needs one of these passkeys (and, on a console reached from other machines, so does signing in).'
          : data.signDecisions
            ? 'Decisions made in this console are signed with one of these passkeys.'
            : `No passkey yet. Add one to sign decisions with it (made for ${data.rpId}).`}
      </p>
      {data.passkeys.length > 0 && (
        <table aria-label="Passkeys">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Kind</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
            </tr>
          </thead>
          <tbody>
            {data.passkeys.map((p) => (
              <tr key={p.id}>
                <td data-label="Label">{p.label}</td>
                <td data-label="Kind">{p.algorithm}</td>
                <td data-label="Added">{when(p.created_at)}</td>
                <td data-label="Last used">{p.last_used_at === null ? 'never' : when(p.last_used_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data.enrolable ? (
        <AddPasskey onDone={reload} />
      ) : (
        <p>{`A passkey needs the console opened under a host name, not an IP address (${data.rpId}): start it with --listen localhost:<port>, or give it a --public-url.`}</p>
      )}
    </>
  );
}
