// Tasks: one agent turn at a time (`POST /api/task`), from an optional origin loom, in a new or a
// continued session. A completed turn shows its text, its origin, the looms it committed (each opened
// by its receipt id through the console's Loom host) and the Patterns it named. Without a model the
// view says how to configure one.
import { useEffect, useState } from 'preact/hooks';
import type {
  ModelStatus,
  Piece,
  TaskModelAnswer,
  TaskResult,
  TaskSessionAnswer,
  TaskSessionsAnswer,
} from '../../answers';
import { getJson, postJson } from '../api';
import { when } from '../format';
import { useLive } from '../hooks';
import { href, type Route } from '../route';
import { type Membership, pieceMembership } from './tasks-membership';

function HowToConfigure({ status }: { status: Extract<ModelStatus, { configured: false }> }) {
  return (
    <section aria-labelledby="no-model-h" class="no-model">
      <h2 id="no-model-h">No model is configured</h2>
      <p>{status.message}.</p>
      <pre>{status.howTo}</pre>
    </section>
  );
}

function PieceItem({ piece }: { piece: Piece }) {
  const [membership, setMembership] = useState<Membership | undefined>(undefined);
  useEffect(() => {
    // Checked against a freshly read loom before the Pattern's ordinary placement is left out.
    void pieceMembership(piece, (id) =>
      getJson<{ loom: { loom_id: string; components: { id: string }[] } }>(
        `/looms/${encodeURIComponent(id)}`,
      ).then(
        (r) => r.loom,
        () => undefined,
      ),
    ).then(setMembership);
  }, [piece]);
  return (
    <li>
      <code>{piece.slug}</code>{' '}
      {membership === undefined
        ? ''
        : membership.member
          ? `is in loom ${membership.loomId} as ${membership.componentId}`
          : 'is in no loom this turn made: place it as usual'}
    </li>
  );
}

function Result({ result }: { result: TaskResult }) {
  return (
    <article aria-labelledby="result-h" class="task-result" data-turn-id={result.turnId}>
      <h2 id="result-h">Result</h2>
      <dl class="facts">
        <div>
          <dt>Origin loom</dt>
          <dd data-origin>{result.originLoomId ?? 'none'}</dd>
        </div>
        <div>
          <dt>Session</dt>
          <dd>
            <code>{result.sessionId}</code>
          </dd>
        </div>
      </dl>
      <p class="task-text">{result.text}</p>
      <section aria-labelledby="looms-h">
        <h3 id="looms-h">Looms this turn committed</h3>
        {result.looms.length === 0 ? (
          <p>None.</p>
        ) : (
          <ul>
            {result.looms.map((l) => (
              <li key={`${l.receipt.loom_id}:${l.receipt.request_id}`}>
                <a href={href('looms', l.receipt.loom_id)}>{`Open loom ${l.receipt.loom_id}`}</a>
                {` (request ${l.receipt.request_id}, committed version ${l.receipt.version}, now ${l.current_version}${l.replayed ? ', a replay of an earlier commit' : l.receipt.created ? ', created' : ''})`}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="pieces-h">
        <h3 id="pieces-h">Patterns named</h3>
        {result.pieces.length === 0 ? (
          <p>None.</p>
        ) : (
          <ul>
            {result.pieces.map((p) => (
              <PieceItem key={p.slug} piece={p} />
            ))}
          </ul>
        )}
      </section>
    </article>
  );
}

function SessionTurns({ sessionId }: { sessionId: string }) {
  const { data } = useLive(
    () => getJson<TaskSessionAnswer>(`/task/sessions/${encodeURIComponent(sessionId)}`),
    ['tasks'],
    [sessionId],
  );
  if (data === undefined) return null;
  return (
    <section aria-labelledby="turns-h">
      <h3 id="turns-h">Turns of this session</h3>
      <ol class="turns">
        {data.turns.map((turn) => (
          <li key={turn.id}>
            {`${turn.input.prompt} — origin ${turn.originLoomId ?? 'none'} — ${turn.status}`}
          </li>
        ))}
      </ol>
    </section>
  );
}

export function TasksView({ route }: { route: Route }) {
  const model = useLive(() => getJson<TaskModelAnswer>('/task/model'), [], []);
  const sessions = useLive(() => getJson<TaskSessionsAnswer>('/task/sessions'), ['tasks'], []);
  // `#/tasks/from/<loomId>` starts from a loom (the focus another view hands over).
  const [prompt, setPrompt] = useState('');
  const [loomId, setLoomId] = useState(route.rest[0] === 'from' ? (route.rest[1] ?? '') : '');
  const [sessionId, setSessionId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<TaskResult | undefined>(undefined);

  if (model.error) return <p role="alert">{model.error}</p>;
  if (model.data === undefined) return <p>Loading…</p>;
  const status = model.data.model;
  if (!status.configured) return <HowToConfigure status={status} />;

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const r = await postJson<TaskResult>('/task', {
        prompt,
        ...(loomId.trim() === '' ? {} : { loomId: loomId.trim() }),
        ...(sessionId === '' ? {} : { sessionId }),
      });
      setResult(r);
      setSessionId(r.sessionId);
      sessions.reload();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <p class="live-note">{`Model: ${status.model} (${status.provider}${status.baseUrl ? ` at ${status.baseUrl}` : ''})`}</p>
      <form aria-label="Run a task" onSubmit={submit} class="task-form">
        <label>
          Prompt
          <textarea
            name="prompt"
            rows={4}
            required
            value={prompt}
            onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        <label>
          Origin loom (optional)
          <input
            name="loomId"
            value={loomId}
            onInput={(e) => setLoomId((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Session
          <select
            name="sessionId"
            value={sessionId}
            onChange={(e) => setSessionId((e.target as HTMLSelectElement).value)}
          >
            <option value="">A new session (the tools configured now)</option>
            {(sessions.data?.sessions ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {`${s.id} — ${s.turns} turn(s), since ${when(s.created_at)}`}
              </option>
            ))}
          </select>
        </label>
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Running…' : 'Run the task'}
          </button>
        </div>
        {error && <p role="alert">{error}</p>}
      </form>
      {result && <Result result={result} />}
      {result && <SessionTurns sessionId={result.sessionId} />}
    </>
  );
}
