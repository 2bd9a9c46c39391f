// Audit: every event, newest first, paged and filtered (agent, command, status, time), following
// live on the first page; `#/audit/<seq>` shows one event's detail. A person's decision on an
// approval is an event of its own (phase `approval`): the person is its actor, the command decided
// on its command.
import { useState } from 'preact/hooks';
import type { AuditEvent, AuditEventAnswer, AuditPageAnswer } from '../../answers';
import { getJson } from '../api';
import { show, when } from '../format';
import { useLive } from '../hooks';
import { href, type Route } from '../route';

const FILTERS = [
  ['agent', 'Agent'],
  ['command', 'Command'],
  ['status', 'Status (outcome)'],
  ['from', 'From (ISO time)'],
  ['to', 'To (ISO time)'],
] as const;
type Filter = Partial<Record<(typeof FILTERS)[number][0], string>>;

function query(filter: Filter, before: number | undefined): string {
  const q = new URLSearchParams({ limit: '100' });
  for (const [k, v] of Object.entries(filter)) if (v) q.set(k, v);
  if (before !== undefined) q.set('before', String(before));
  return q.toString();
}

function FilterForm({ onApply }: { onApply: (f: Filter) => void }) {
  const [draft, setDraft] = useState<Filter>({});
  return (
    <form
      class="filters"
      aria-label="Filter events"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(draft);
      }}
    >
      {FILTERS.map(([name, label]) => (
        <label key={name}>
          {label}
          <input
            name={name}
            value={draft[name] ?? ''}
            onInput={(e) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value })}
          />
        </label>
      ))}
      <button type="submit">Apply filters</button>
    </form>
  );
}

/**
 * What an event concerns, for its Command column and heading. A listing's row records `*` as its
 * command (it concerns every command the agent may call): it reads as the listing, with its count.
 */
function subject(e: AuditEvent): { text: string; code: boolean } {
  if (e.phase !== 'list') return { text: e.command, code: true };
  const count = e.payload.count;
  return {
    text: typeof count === 'number' ? `command listing (${count} commands)` : 'command listing',
    code: false,
  };
}

/** An event's subject: its command as code, or a listing as words. */
export function Subject({ event }: { event: AuditEvent }) {
  const { text, code } = subject(event);
  return code ? <code>{text}</code> : <span>{text}</span>;
}

function EventTable({ events }: { events: AuditEvent[] }) {
  return (
    <table class="audit">
      <caption class="sr-only">Audit events, newest first</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Time</th>
          <th scope="col">Actor</th>
          <th scope="col">Command</th>
          <th scope="col">Phase</th>
          <th scope="col">Outcome</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr key={e.seq} data-seq={e.seq}>
            <td data-label="#">
              <a href={href('audit', String(e.seq))}>{e.seq}</a>
            </td>
            <td data-label="Time">
              <time dateTime={e.at}>{when(e.at)}</time>
            </td>
            <td data-label="Actor">{e.actor}</td>
            <td data-label="Command">
              <Subject event={e} />
            </td>
            <td data-label="Phase">{e.phase}</td>
            <td data-label="Outcome" class={`status ${e.outcome}`}>
              {`${e.outcome}/${e.code}`}
              {e.reason ? ` (${e.reason})` : ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function EventList() {
  const [filter, setFilter] = useState<Filter>({});
  const [pages, setPages] = useState<number[]>([]);
  const before = pages.at(-1);
  const { data, error } = useLive(
    () => getJson<AuditPageAnswer>(`/audit?${query(filter, before)}`),
    before === undefined ? ['audit'] : [],
    [JSON.stringify(filter), before],
  );
  return (
    <>
      <FilterForm
        onApply={(f) => {
          setFilter(f);
          setPages([]);
        }}
      />
      {error && <p role="alert">{error}</p>}
      {data === undefined ? (
        <p>Loading…</p>
      ) : data.events.length === 0 ? (
        <p>No event matches.</p>
      ) : (
        <EventTable events={data.events} />
      )}
      <div class="pager">
        {pages.length > 0 && (
          <button type="button" onClick={() => setPages(pages.slice(0, -1))}>
            Newer
          </button>
        )}
        {data?.next != null && (
          <button type="button" onClick={() => setPages([...pages, data.next as number])}>
            Older
          </button>
        )}
        {before === undefined && <span class="live-note">Following new events live.</span>}
      </div>
    </>
  );
}

function Fact({ name, value }: { name: string; value: unknown }) {
  if (value === undefined || value === null) return null;
  return (
    <div>
      <dt>{name}</dt>
      <dd>
        <code>{show(value)}</code>
      </dd>
    </div>
  );
}

function EventDetail({ seq }: { seq: string }) {
  const { data, error } = useLive(
    () => getJson<AuditEventAnswer>(`/audit/${encodeURIComponent(seq)}`),
    [],
    [seq],
  );
  if (error) return <p role="alert">{error}</p>;
  if (data === undefined) return <p>Loading…</p>;
  const e = data.event;
  const run = (e.payload.run ?? {}) as Record<string, unknown>;
  const approvalId = e.payload.approvalId;
  return (
    <article class="detail" aria-labelledby="detail-h">
      <h2 id="detail-h">{`Event ${e.seq}: ${subject(e).text}`}</h2>
      <p>
        <a href={href('audit')}>Back to all events</a>
      </p>
      <dl class="facts">
        <Fact name="Time" value={e.at} />
        <Fact name={e.phase === 'approval' ? 'Decided by' : 'Actor'} value={e.actor} />
        <Fact name="Agent" value={e.phase === 'approval' ? e.payload.agent : undefined} />
        <Fact name="Run" value={e.run} />
        <Fact name="Action" value={e.action} />
        <Fact name="Phase" value={e.phase} />
        <Fact name="Outcome" value={`${e.outcome}/${e.code}`} />
        <Fact name="Reason" value={e.reason} />
        <Fact name="Tier" value={e.payload.tier} />
        <Fact name="Decision" value={e.payload.decision} />
        <Fact name="Approval" value={approvalId} />
        <Fact name="Approved by" value={e.payload.approved_by} />
        <Fact name="Exit code" value={run.exitCode} />
        <Fact name="Signal" value={run.signal} />
        <Fact name="Duration (ms)" value={run.durationMs} />
        <Fact name="Label" value={e.payload.label} />
        <Fact name="Confinement" value={run.confinement} />
      </dl>
      {Array.isArray(run.argv) && (
        <>
          <h3>Command line</h3>
          <ol class="argv">
            {(run.argv as unknown[]).map((a, i) => (
              <li key={i}>
                <code>{show(a)}</code>
              </li>
            ))}
          </ol>
        </>
      )}
      <h3>Recorded payload</h3>
      <pre>{JSON.stringify(e.payload, null, 2)}</pre>
    </article>
  );
}

export function AuditView({ route }: { route: Route }) {
  const seq = route.rest[0];
  return seq === undefined ? <EventList /> : <EventDetail seq={seq} />;
}
