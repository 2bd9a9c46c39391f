// Approvals: the pending queue, live; approve or deny one exact call with one confirmation (a call
// whose command line cannot be shown can only be denied); the history with each approved call's
// outcome. `#/approvals/<id>` is one approval on a page of its own, sized for a phone (the link a
// notification carries): its call, its run's recent calls, and the same decision.
import { useEffect, useRef, useState } from 'preact/hooks';
import type {
  ApprovalAnswer as Approval,
  ApprovalCallsAnswer,
  ApprovalOneAnswer,
  ApprovalOutcome,
  ApprovalsAnswer,
} from '../../answers';
import { getJson } from '../api';
import { show, when } from '../format';
import { useLive } from '../hooks';
import { decide as decideApproval } from '../passkey';
import { href, type Route } from '../route';
import { ApprovalNotices } from './approval-notices';
import { Subject } from './audit';

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
      // Signed with the person's passkey when the console has one (../passkey.ts).
      await decideApproval(approval.id, asking);
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

/** The argv the call would run, one element per item. */
function Argv({ argv }: { argv: readonly string[] }) {
  return (
    <ol class="argv">
      {argv.map((a, i) => (
        <li key={i}>
          <code>{a}</code>
        </li>
      ))}
    </ol>
  );
}

/**
 * The command line: the line the command's pack writes for people (its `display`, the call's
 * values escaped) with the full argv one click away, or the argv itself when there is no such line.
 */
function CommandLine({ approval }: { approval: Approval }) {
  const display = approval.display ?? null;
  return approval.plan.ok ? (
    <>
      {display === null ? (
        <Argv argv={approval.plan.argv} />
      ) : (
        <>
          <p class="display">
            <code>{display}</code>
          </p>
          <details class="full-argv">
            <summary>Full argv</summary>
            <Argv argv={approval.plan.argv} />
          </details>
        </>
      )}
      {approval.plan_hash === null ? null : (
        // What the approval is bound to: the same 12 digits as `harness approvals list` prints.
        <p class="plan-hash" title={approval.plan_hash}>
          plan <code>{approval.plan_hash.slice(0, 12)}</code>
        </p>
      )}
      <Covers approval={approval} />
    </>
  ) : (
    <p class="plan-problem" id={`plan-${approval.id}`}>
      {`Cannot be approved: ${approval.plan.message}. Deny it to clear it.`}
    </p>
  );
}

/**
 * What the command's preview showed when the call was held (a read command of its pack, run
 * confined, its output cut at 40 lines / 4 KiB), or the line saying why it showed nothing.
 */
function Preview({ approval }: { approval: Approval }) {
  const p = approval.preview ?? null;
  if (p === null) return null;
  return (
    <section class="preview" aria-label={`Preview: ${p.command}`}>
      <p>
        {'Preview from '}
        <code>{p.command}</code>
        {p.truncated ? ' (first 40 lines / 4 KiB)' : ''}
      </p>
      {p.ok ? (
        <pre class="preview-output">{p.text === '' ? '(no output)' : p.text}</pre>
      ) : (
        <p class="preview-failed">{p.text}</p>
      )}
    </section>
  );
}

/** What else the plan binds: the program's bytes and the project files the command runs as code. */
function Covers({ approval }: { approval: Approval }) {
  const covers = approval.covers;
  if (covers === null) return null;
  return (
    <dl class="covers">
      {covers.executable === null ? null : (
        <div>
          <dt>program</dt>
          <dd>
            <code>{covers.executable}</code>{' '}
            {covers.executable_sha256 === null ? null : <code>{covers.executable_sha256.slice(0, 12)}</code>}
          </dd>
        </div>
      )}
      {covers.inputs.map((input) => (
        <div key={input.path}>
          <dt>file</dt>
          <dd>
            <code>{input.path}</code>{' '}
            <code>{input.sha256 === 'absent' ? 'absent' : input.sha256.slice(0, 12)}</code>
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
      <p>
        <a href={href('approvals', approval.id)}>Open on its own page</a>
      </p>
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
      <CommandLine approval={approval} />
      <Preview approval={approval} />
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
            <td data-label="Status" class={`status ${a.status}`}>
              {a.status}
            </td>
            <td data-label="Command">
              <code>{a.command}</code>
            </td>
            <td data-label="Agent">{a.agent}</td>
            <td data-label="Decided by">{a.decided_by ?? '—'}</td>
            <td data-label="Decided">{when(a.decided_at)}</td>
            <td data-label="Outcome">
              {a.outcome ? ranText(a.outcome) : a.status === 'approved' ? 'not run yet' : '—'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** How an approved call's run ended, with its exit code: `tests failed (exit 1)`, `ok (exit 0)`. */
function ranText(o: ApprovalOutcome): string {
  return `${o.summary}${o.exitCode === null ? '' : ` (exit ${o.exitCode})`}`;
}

/** Where an approval stands, in one sentence. */
function standing(a: Approval): string {
  const by = `${a.decided_by ?? 'someone'} at ${when(a.decided_at)}`;
  switch (a.status) {
    case 'pending':
      return `Waiting for a decision until ${when(a.expires_at)}.`;
    case 'approved':
      return `Approved by ${by}; the agent's identical call has not run yet.`;
    case 'consumed':
      return `Approved by ${by}; it ran${a.outcome ? `: ${ranText(a.outcome)}` : ''}.`;
    case 'denied':
      return `Denied by ${by}.`;
    case 'expired':
      return `Expired at ${when(a.expires_at)} without a decision.`;
  }
}

function RunCalls({ approval }: { approval: Approval }) {
  const { data, error } = useLive(
    () => getJson<ApprovalCallsAnswer>(`/approvals/${encodeURIComponent(approval.id)}/calls`),
    ['audit'],
    [approval.id],
  );
  if (error) return <p role="alert">{error}</p>;
  if (data === undefined) return <p>Loading…</p>;
  if (data.calls.length === 0) {
    return (
      <p>
        {data.complete
          ? 'The audit holds no call of this run.'
          : "No call of this run among its agent's 2 000 newest events."}
      </p>
    );
  }
  return (
    <ol class="calls">
      {data.calls.map((e) => (
        <li key={e.seq} data-seq={e.seq}>
          <a href={href('audit', String(e.seq))}>
            <Subject event={e} />
          </a>
          <span class={`status ${e.outcome}`}>
            {`${e.outcome}/${e.code}`}
            {e.reason ? ` (${e.reason})` : ''}
          </span>
          <time dateTime={e.at}>{when(e.at)}</time>
        </li>
      ))}
    </ol>
  );
}

/** One approval on a page of its own (`#/approvals/<id>`): sized for a phone, decided with large buttons. */
function ApprovalPage({ id }: { id: string }) {
  const { data, error, reload } = useLive(
    () => getJson<ApprovalOneAnswer>(`/approvals/${encodeURIComponent(id)}`),
    ['approvals', 'audit'],
    [id],
  );
  const back = (
    <p>
      <a href={href('approvals')}>All approvals</a>
    </p>
  );
  if (data === undefined) {
    return (
      <>
        {back}
        {error ? <p role="alert">{error}</p> : <p>Loading…</p>}
      </>
    );
  }
  const a = data.approval;
  return (
    <article class="approval one" aria-labelledby="one-h" data-approval-id={a.id}>
      {back}
      <h2 id="one-h">
        <code>{a.command}</code>
      </h2>
      <p class={`decision status ${a.status}`} role="status">
        {standing(a)}
      </p>
      {a.assertion ? <p class="signed">Signed with a passkey.</p> : null}
      <p class="reason">{a.reason}</p>
      <dl class="facts">
        <div>
          <dt>Agent</dt>
          <dd>{a.agent}</dd>
        </div>
        <div>
          <dt>Run</dt>
          <dd>
            <code>{a.run}</code>
          </dd>
        </div>
        <div>
          <dt>Tier</dt>
          <dd>{a.tier ?? '(not recorded)'}</dd>
        </div>
        <div>
          <dt>Asked</dt>
          <dd>
            <time dateTime={a.created_at}>{when(a.created_at)}</time>
          </dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>
            <time dateTime={a.expires_at}>{when(a.expires_at)}</time>
          </dd>
        </div>
      </dl>
      <h3>Arguments</h3>
      <Args approval={a} />
      <h3>Command line</h3>
      <CommandLine approval={a} />
      <Preview approval={a} />
      {/* Keyed by the approval: another approval's page never inherits this one's confirmation state. */}
      {a.status === 'pending' && <Decide key={a.id} approval={a} onDone={reload} />}
      {error && <p role="alert">{error}</p>}
      <h3>Recent calls of this run</h3>
      <RunCalls key={a.id} approval={a} />
      <h3>Notifications</h3>
      <ApprovalNotices key={a.id} id={a.id} />
    </article>
  );
}

export function ApprovalsView({ route }: { route: Route }) {
  const one = route.rest[0];
  return one === undefined ? <ApprovalList /> : <ApprovalPage id={one} />;
}

function ApprovalList() {
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
