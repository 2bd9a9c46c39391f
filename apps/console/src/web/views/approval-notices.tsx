// The notifications of one approval (docs/notify.md): each notify target told of each event, and
// how its delivery went — on the one-approval page, under its run's recent calls.
import { useEffect } from 'preact/hooks';
import type { ApprovalNotice, ApprovalNoticesAnswer } from '../../answers';
import { getJson, inBackground } from '../api';
import { when } from '../format';
import { useLive } from '../hooks';

/** How one delivery stands, in words: `delivered`, `failed after 4 attempts: timeout after 5s`. */
function standing(n: ApprovalNotice): string {
  const tries = `${n.attempts} attempt${n.attempts === 1 ? '' : 's'}`;
  if (n.status === 'delivered') return `delivered (${tries})`;
  if (n.status === 'failed') return `failed after ${tries}${n.error ? `: ${n.error}` : ''}`;
  return `sending (${tries} so far${n.error ? `, last: ${n.error}` : ''})`;
}

/** How often the open page reads the delivery log again: deliveries change it, not the live feed. */
const NOTICES_EVERY_MS = 3_000;

/** The delivery log of approval `id`, read again every few seconds and on every change to approvals or the audit. */
export function ApprovalNotices({ id }: { id: string }) {
  const { data, error, reload } = useLive(
    () => getJson<ApprovalNoticesAnswer>(`/approvals/${encodeURIComponent(id)}/notices`),
    ['approvals', 'audit'],
    [id],
  );
  useEffect(() => {
    // The page's own refresh, not the person's activity: it must not keep an idle session alive.
    const timer = setInterval(() => inBackground(async () => reload()), NOTICES_EVERY_MS);
    return () => clearInterval(timer);
  }, [reload]);
  if (error) return <p role="alert">{error}</p>;
  if (data === undefined) return <p>Loading…</p>;
  if (data.notices.length === 0) return <p>Nobody was notified of this approval.</p>;
  return (
    <table class="notices">
      <caption class="sr-only">Notifications of this approval, oldest first</caption>
      <thead>
        <tr>
          <th scope="col">Target</th>
          <th scope="col">Event</th>
          <th scope="col">Delivery</th>
          <th scope="col">Last change</th>
        </tr>
      </thead>
      <tbody>
        {data.notices.map((n) => (
          <tr key={n.id} data-notice-target={n.target} data-notice-event={n.event}>
            <td data-label="Target">{n.target}</td>
            <td data-label="Event">{n.event}</td>
            <td data-label="Delivery" class={`status ${n.status}`}>
              {standing(n)}
            </td>
            <td data-label="Last change">
              <time dateTime={n.updated_at}>{when(n.updated_at)}</time>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
