// Looms: the looms of the instance; one loom's current version with components by stage and the
// shelf, its receipts and versions.
import { useState } from 'preact/hooks';
import { getJson } from '../api';
import { useLive } from '../hooks';
import { href, type Route } from '../route';

interface ComponentView {
  id: string;
  kind: string;
  title: string | null;
  stage: string | null;
  position: number;
  added_version: number;
}

interface LoomView {
  loom_id: string;
  version: number;
  created_at: string;
  updated_at: string;
  components: ComponentView[];
  layout: { stages: Record<string, string[]>; shelf: string[]; focus: string | null };
}

function LoomDetail({ id }: { id: string }) {
  const { data, error } = useLive(
    () => getJson<{ loom: LoomView }>(`/looms/${encodeURIComponent(id)}`),
    ['audit'],
    [id],
  );
  if (error) return <p role="alert">{error}</p>;
  if (data === undefined) return <p>Loading…</p>;
  const loom = data.loom;
  const byId = new Map(loom.components.map((c) => [c.id, c]));
  const item = (cid: string) => {
    const c = byId.get(cid);
    return (
      <li key={cid}>
        <code>{cid}</code> {c ? `${c.kind}${c.title ? `: ${c.title}` : ''}` : ''}
        {loom.layout.focus === cid ? ' (focus)' : ''}
      </li>
    );
  };
  return (
    <article aria-labelledby="loom-h">
      <h2 id="loom-h">
        <code>{loom.loom_id}</code> {`version ${loom.version}`}
      </h2>
      {Object.entries(loom.layout.stages).map(([stage, ids]) => (
        <section key={stage} aria-label={`Stage ${stage}`}>
          <h3>{`Stage ${stage}`}</h3>
          <ul>{ids.map(item)}</ul>
        </section>
      ))}
      <section aria-label="Shelf">
        <h3>Shelf</h3>
        {loom.layout.shelf.length === 0 ? <p>Empty.</p> : <ul>{loom.layout.shelf.map(item)}</ul>}
      </section>
    </article>
  );
}

export function LoomsView({ route }: { route: Route }) {
  const [id, setId] = useState('');
  const open = route.rest[0];
  if (open !== undefined) return <LoomDetail id={open} />;
  return (
    <form
      aria-label="Open a loom"
      onSubmit={(e) => {
        e.preventDefault();
        location.hash = href('looms', id);
      }}
    >
      <label>
        Loom id
        <input value={id} onInput={(e) => setId((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit">Open</button>
    </form>
  );
}
