// Looms: the looms of the instance; `#/looms/<id>` shows one loom's current version with its
// components by stage and the shelf, and its receipts (its versions).
import type { LoomAnswer, LoomsAnswer, LoomView, Receipt } from '../../answers';
import { getJson } from '../api';
import { when } from '../format';
import { useLive } from '../hooks';
import { href, type Route } from '../route';

function Components({ ids, loom }: { ids: string[]; loom: LoomView }) {
  const byId = new Map(loom.components.map((c) => [c.id, c]));
  return (
    <ul class="components">
      {ids.map((cid) => {
        const c = byId.get(cid);
        return (
          <li key={cid} data-component-id={cid}>
            <code>{cid}</code>
            {c ? ` ${c.kind}${c.title ? `: ${c.title}` : ''} (added in version ${c.added_version})` : ''}
            {loom.layout.focus === cid ? ' — focus' : ''}
          </li>
        );
      })}
    </ul>
  );
}

function Receipts({ receipts }: { receipts: Receipt[] }) {
  return (
    <table class="receipts">
      <caption class="sr-only">Receipts, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Version</th>
          <th scope="col">Request id</th>
          <th scope="col">Committed</th>
          <th scope="col">Components added</th>
          <th scope="col">Displaced</th>
        </tr>
      </thead>
      <tbody>
        {receipts.map((r) => (
          <tr key={`${r.version}-${r.request_id}`} data-request-id={r.request_id}>
            <td data-label="Version">{`${r.version}${r.created ? ' (created)' : ''}`}</td>
            <td data-label="Request id">
              <code>{r.request_id}</code>
            </td>
            <td data-label="Committed">
              <time dateTime={r.committed_at}>{when(r.committed_at)}</time>
            </td>
            <td data-label="Components added">{r.component_ids.join(', ') || '—'}</td>
            <td data-label="Displaced">{r.displaced.join(', ') || '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LoomDetail({ id }: { id: string }) {
  const { data, error } = useLive(
    () => getJson<LoomAnswer>(`/looms/${encodeURIComponent(id)}`),
    ['audit'],
    [id],
  );
  if (error) return <p role="alert">{error}</p>;
  if (data === undefined) return <p>Loading…</p>;
  const { loom, receipts } = data;
  const stages = Object.entries(loom.layout.stages);
  return (
    <article class="loom" aria-labelledby="loom-h">
      <h2 id="loom-h">
        <code>{loom.loom_id}</code> {`version ${loom.version}`}
      </h2>
      <p>
        <a href={href('looms')}>All looms</a>
      </p>
      <h3>Stages</h3>
      {stages.length === 0 ? <p>No component is on a stage.</p> : null}
      {stages.map(([stage, ids]) => (
        <section key={stage} aria-label={`Stage ${stage}`}>
          <h4>{`Stage ${stage}`}</h4>
          <Components ids={ids} loom={loom} />
        </section>
      ))}
      <section aria-labelledby="shelf-h">
        <h3 id="shelf-h">Shelf</h3>
        {loom.layout.shelf.length === 0 ? <p>Empty.</p> : <Components ids={loom.layout.shelf} loom={loom} />}
      </section>
      <section aria-labelledby="receipts-h">
        <h3 id="receipts-h">Receipts and versions</h3>
        <Receipts receipts={receipts} />
      </section>
    </article>
  );
}

function LoomList() {
  const { data, error } = useLive(() => getJson<LoomsAnswer>('/looms'), ['audit'], []);
  if (error) return <p role="alert">{error}</p>;
  if (data === undefined) return <p>Loading…</p>;
  if (data.looms.length === 0) return <p>No loom yet: an agent creates one with loom_compose.</p>;
  return (
    <table class="looms">
      <caption class="sr-only">Looms, most recently changed first</caption>
      <thead>
        <tr>
          <th scope="col">Loom</th>
          <th scope="col">Version</th>
          <th scope="col">Components</th>
          <th scope="col">Changed</th>
        </tr>
      </thead>
      <tbody>
        {data.looms.map((l) => (
          <tr key={l.loom_id} data-loom-id={l.loom_id}>
            <td data-label="Loom">
              <a href={href('looms', l.loom_id)}>{l.loom_id}</a>
            </td>
            <td data-label="Version">{l.version}</td>
            <td data-label="Components">{l.components}</td>
            <td data-label="Changed">
              <time dateTime={l.updated_at}>{when(l.updated_at)}</time>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function LoomsView({ route }: { route: Route }) {
  const id = route.rest[0];
  return id === undefined ? <LoomList /> : <LoomDetail id={id} />;
}
