// Runs: the runner's runs with their status and skip reasons, the webhook source (its id) and the
// forge's delivery id of each run a delivery started; the harnesses of the runner file as
// `describe` shows them; a harness editor (kind picker, argv editor) whose entry keeps every other
// key unchanged. The console shows the edited entry to copy into the runner file; it writes nothing.
import { useState } from 'preact/hooks';
import type { HarnessesAnswer, RunsAnswer } from '../../answers';
import { getJson } from '../api';
import { show, when } from '../format';
import { useLive } from '../hooks';
import { applyEdit, editOf, type HarnessEdit, type HarnessEntry } from './runs-editor';

function RunsTable() {
  const { data, error } = useLive(() => getJson<RunsAnswer>('/runs'), ['audit'], []);
  if (error) return <p role="alert">{error}</p>;
  if (data === undefined) return <p>Loading…</p>;
  if (data.runs.length === 0) return <p>No runs recorded.</p>;
  return (
    <table aria-label="Runs">
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Harness</th>
          <th scope="col">Status</th>
          <th scope="col">Reason</th>
          <th scope="col">Exit</th>
          <th scope="col">Trigger</th>
          <th scope="col">Source</th>
          <th scope="col">Delivery</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {data.runs.map((r) => (
          <tr key={r.id} data-run-id={r.id}>
            <td data-label="Run">
              <code>{r.id}</code>
            </td>
            <td data-label="Harness">{r.harness}</td>
            <td data-label="Status">
              <span class={`status ${r.status}`}>{r.status}</span>
            </td>
            <td data-label="Reason">
              {r.reason === null ? '' : r.path === null ? r.reason : `${r.reason}: ${r.path}`}
            </td>
            <td data-label="Exit">{r.exit_code === null ? '' : String(r.exit_code)}</td>
            <td data-label="Trigger">{r.trigger}</td>
            <td data-label="Source">{r.source ?? ''}</td>
            <td data-label="Delivery">{r.delivery === null ? '' : <code>{r.delivery}</code>}</td>
            <td data-label="Created">{when(r.created_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Editor({ id, entry, kinds }: { id: string; entry: HarnessEntry; kinds: readonly string[] }) {
  const [edit, setEdit] = useState<HarnessEdit>(() => editOf(entry));
  const argv = edit.argv ?? [];
  const setArgv = (next: string[]) => setEdit({ ...edit, argv: next });
  return (
    <form aria-label={`Edit harness ${id}`} onSubmit={(e) => e.preventDefault()}>
      <label>
        Kind
        <select
          value={edit.kind}
          onChange={(e) => setEdit({ ...edit, kind: (e.target as HTMLSelectElement).value })}
        >
          {kinds.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>argv</legend>
        <ol class="argv">
          {argv.map((element, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: argv elements are positions
            <li key={i}>
              <input
                aria-label={`argv ${i}`}
                value={element}
                onInput={(e) =>
                  setArgv(argv.map((v, j) => (j === i ? (e.target as HTMLInputElement).value : v)))
                }
              />
              <button type="button" onClick={() => setArgv(argv.filter((_, j) => j !== i))}>
                {`Remove argv ${i}`}
              </button>
            </li>
          ))}
        </ol>
        <button type="button" onClick={() => setArgv([...argv, ''])}>
          Add an argv element
        </button>
      </fieldset>
      <h4>The entry to put in the runner file</h4>
      <pre data-entry={id}>{JSON.stringify(applyEdit(entry, edit), null, 2)}</pre>
    </form>
  );
}

function Harnesses() {
  const { data, error } = useLive(() => getJson<HarnessesAnswer>('/runs/harnesses'), [], []);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  if (error) return <p role="alert">{error}</p>;
  if (data === undefined) return <p>Loading…</p>;
  if (data.file === null)
    return <p>{`No runner file: set ${data.variable} to its absolute path and restart the console.`}</p>;
  return (
    <>
      <p>
        <code>{data.file}</code>
      </p>
      {(data.problems ?? []).map((p) => (
        <p role="alert" key={p}>
          {p}
        </p>
      ))}
      {data.harnesses.map((h) => (
        <article key={h.id} aria-labelledby={`h-${h.id}`}>
          <h3 id={`h-${h.id}`}>{h.id}</h3>
          <dl class="facts">
            {Object.entries(h.describe).map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>
                  <code>{show(v)}</code>
                </dd>
              </div>
            ))}
          </dl>
          {h.entry !== null &&
            (editing === h.id ? (
              <Editor id={h.id} entry={h.entry} kinds={data.kinds} />
            ) : (
              <button type="button" onClick={() => setEditing(h.id)}>
                {`Edit ${h.id}`}
              </button>
            ))}
        </article>
      ))}
    </>
  );
}

export function RunsView() {
  return (
    <>
      <section aria-labelledby="runs-h">
        <h2 id="runs-h">Runs</h2>
        <RunsTable />
      </section>
      <section aria-labelledby="harnesses-h">
        <h2 id="harnesses-h">Harnesses</h2>
        <Harnesses />
      </section>
    </>
  );
}
