// Approvals: the pending queue, live; approve or deny one exact call with one confirmation (a call
// whose command line cannot be shown can only be denied); the history with each approved call's
// outcome.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApprovalAnswer as Approval, ApprovalsAnswer } from '../../answers';
import { getJson, postJson } from '../api';
import { show, when } from '../format';
import { useLive } from '../hooks';

function Decide({ approval, onDone }: { approval: Approval; onDone: () => void }) {
  const [asking, setAsking] = useState<'approved' | 'denied' | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking !== undefined) confirmRef.current?.focus();
  }, [asking]);
  const decide = async () => {
    if (asking === undefined) return;
    setBusy(true);
    try {
      await postJson(`/approvals/${encodeURIComponent(approval.id)}/decision`, { decision: asking });
      onDone();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const plan = approval.plan;
  if (asking === undefined) {
    return (
      <div class="actions">
        <button
          type="button"
          class="approve"
          disabled={!plan.ok}
          aria-describedby={plan.ok ? undefined : `plan-${approval.id}`}
          onClick={() => setAsking('approved')}
        >
          Approve…
        </button>
        <button type="button" class="deny" onClick={() => setAsking('denied')}>
          Deny…
        </button>
        {error && <p role="alert">{error}</p>}
      </div>
    );
  }
  const verb = asking === 'approved' ? 'Approve' : 'Deny';
  return (
    <fieldset class="actions confirm">
      <legend class="sr-only">{`Confirm: ${verb.toLowerCase()} ${approval.command}`}</legend>
      <p>
        {asking === 'approved'
          ? 'Approve this exact call? It may run once, with exactly these arguments.'
          : 'Deny this exact call? The agent is told a person denied it; the decision is final.'}
      </p>
      <button
        type="button"
        ref={confirmRef}
        class={asking === 'approved' ? 'approve' : 'deny'}
        disabled={busy}
        onClick={decide}
      >
        {`Confirm: ${verb.toLowerCase()}`}
      </button>
      <button type="button" onClick={() => setAsking(undefined)}>
        Cancel
      </button>
      {error && <p role="alert">{error}</p>}
    </fieldset>
  );
}

function Args({ approval }: { approval: Approval }) {
  const values = approval.args;
  return (
    <dl class="args">
      {approval.arg_names.map((name) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>
            <code>{values === null ? '(value not recorded)' : show(values[name])}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Pending({ approval, onDone }: { approval: Approval; onDone: () => void }) {
  return (
    <article class="approval" aria-labelledby={`a-${approval.id}`} data-approval-id={approval.id}>
      <h3 id={`a-${approval.id}`}>
        <code>{approval.command}</code>
      </h3>
      <p class="reason">{approval.reason}</p>
      <dl class="facts">
        <div>
          <dt>Agent</dt>
          <dd>{approval.agent}</dd>
        </div>
        <div>
          <dt>Run</dt>
          <dd>{approval.run}</dd>
        </div>
        <div>
          <dt>Tier</dt>
          <dd>{approval.tier ?? '(not recorded)'}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>
            <time dateTime={approval.expires_at}>{when(approval.expires_at)}</time>
          </dd>
        </div>
      </dl>
      <h4>Arguments</h4>
      <Args approval={approval} />
      <h4>Command line</h4>
      {approval.plan.ok ? (
        <ol class="argv">
          {approval.plan.argv.map((a, i) => (
            <li key={i}>
              <code>{a}</code>
            </li>
          ))}
        </ol>
      ) : (
        <p class="plan-problem" id={`plan-${approval.id}`}>
          {`Cannot be approved: ${approval.plan.message}. Deny it to clear it.`}
        </p>
      )}
      <Decide approval={approval} onDone={onDone} />
    </article>
  );
}

function History({ list }: { list: Approval[] }) {
  if (list.length === 0) return <p>No decided approvals yet.</p>;
  return (
    <table class="history">
      <caption class="sr-only">Decided approvals, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Status</th>
          <th scope="col">Command</th>
          <th scope="col">Agent</th>
          <th scope="col">Decided by</th>
          <th scope="col">Decided</th>
          <th scope="col">Outcome</th>
        </tr>
      </thead>
      <tbody>
        {list.map((a) => (
          <tr key={a.id} data-approval-id={a.id}>
            <td class={`status ${a.status}`}>{a.status}</td>
            <td>
              <code>{a.command}</code>
            </td>
            <td>{a.agent}</td>
            <td>{a.decided_by ?? '—'}</td>
            <td>{when(a.decided_at)}</td>
            <td>
              {a.outcome
                ? `${a.outcome.outcome}${a.outcome.exitCode === null ? '' : ` (exit ${a.outcome.exitCode})`}`
                : a.status === 'approved'
                  ? 'not run yet'
                  : '—'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ApprovalsView() {
  const { data, error, reload } = useLive(
    () => getJson<ApprovalsAnswer>('/approvals?status=all'),
    ['approvals', 'audit'],
    [],
  );
  const all = data?.approvals ?? [];
  const pending = all.filter((a) => a.status === 'pending');
  const decided = all.filter((a) => a.status !== 'pending');
  return (
    <>
      {error && <p role="alert">{error}</p>}
      <section aria-labelledby="pending-h">
        <h2 id="pending-h">Pending ({pending.length})</h2>
        <div aria-live="polite">
          {data === undefined ? (
            <p>Loading…</p>
          ) : pending.length === 0 ? (
            <p>No call is waiting for a decision.</p>
          ) : (
            pending.map((a) => <Pending key={a.id} approval={a} onDone={reload} />)
          )}
        </div>
      </section>
      <section aria-labelledby="history-h">
        <h2 id="history-h">History</h2>
        <History list={decided} />
      </section>
    </>
  );
}
