// Servers: the MCP server tool definitions held for a person's review, live — each tool's id, new or
// changed, when it was first listed, its hash, and what changed against the accepted definition as
// removed (`-`) and added (`+`) lines, with the flags a person should read twice — and the decision
// on one: Accept or Reject, naming the hash shown (signed with the passkey when the console has one).
// Every text of a server is rendered as text, never as markup. Below, the accepted tools by server.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { HeldToolAnswer as Held, ServerDiffLine, ServersAnswer } from '../../answers';
import { getJson } from '../api';
import { when } from '../format';
import { useLive } from '../hooks';
import { decideTool } from '../passkey';

const short = (hash: string) => `${hash.slice(0, 12)}…`;

function Decide({ tool, onDone }: { tool: Held; onDone: () => void }) {
  const [asking, setAsking] = useState<'accepted' | 'rejected' | undefined>(undefined);
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
      await decideTool({ server: tool.server, tool: tool.upstream, hash: tool.hash, decision: asking });
      setAsking(undefined);
      onDone();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  if (!tool.decidable) {
    return (
      <p class="muted">
        {`The store has no text of this definition (an older host recorded it), so it is decided with the CLI: harness servers review ${tool.server}`}
      </p>
    );
  }
  if (asking === undefined) {
    return (
      <div class="actions">
        <button type="button" class="approve" onClick={() => setAsking('accepted')}>
          Accept…
        </button>
        <button type="button" class="deny" onClick={() => setAsking('rejected')}>
          Reject…
        </button>
        {error && <p role="alert">{error}</p>}
      </div>
    );
  }
  const verb = asking === 'accepted' ? 'accept' : 'reject';
  return (
    <fieldset class="actions confirm">
      <legend class="sr-only">{`Confirm: ${verb} ${tool.id}`}</legend>
      <p>
        {asking === 'accepted'
          ? `Accept this exact definition (sha256 ${short(tool.hash)})? Agents are shown it and may call the tool from their next listing.`
          : 'Reject this definition? The tool stays held from agents; its accepted definition, if any, stays.'}
      </p>
      <button
        type="button"
        ref={confirmRef}
        class={asking === 'accepted' ? 'approve' : 'deny'}
        disabled={busy}
        onClick={decide}
      >
        {`Confirm: ${verb}`}
      </button>
      <button type="button" onClick={() => setAsking(undefined)}>
        Cancel
      </button>
      {error && <p role="alert">{error}</p>}
    </fieldset>
  );
}

function Diff({ lines }: { lines: readonly ServerDiffLine[] }) {
  if (lines.length === 0) return <p class="muted">No member of the definition differs that can be shown.</p>;
  return (
    <dl class="definition-diff">
      {lines.map((l) => (
        <div key={l.member} data-member={l.member}>
          <dt>
            <code>{l.member}</code>
          </dt>
          {l.before !== undefined && (
            <dd class="removed">
              <span aria-hidden="true">- </span>
              <span class="sr-only">accepted: </span>
              <code>{l.before}</code>
            </dd>
          )}
          {l.after !== undefined && (
            <dd class="added">
              <span aria-hidden="true">+ </span>
              <span class="sr-only">listed now: </span>
              <code>{l.after}</code>
            </dd>
          )}
          {l.flags.map((f) => (
            <dd key={f} class="flag">
              {`! ${f}`}
            </dd>
          ))}
        </div>
      ))}
    </dl>
  );
}

function HeldTool({ tool, onDone }: { tool: Held; onDone: () => void }) {
  const head = `h-${tool.server}-${tool.hash.slice(0, 12)}`;
  const flagged = tool.diff.some((l) => l.flags.length > 0);
  return (
    <article class="approval held-tool" aria-labelledby={head} data-tool-id={tool.id}>
      <h3 id={head}>
        <code>{tool.id}</code> <span class={`change ${tool.change}`}>{tool.change}</span>
        {flagged && <span class="flagged"> flagged: read twice</span>}
      </h3>
      <dl class="facts">
        {tool.upstream !== tool.id.slice(tool.server.length + 1) && (
          <div>
            <dt>Listed as</dt>
            <dd>
              <code>{JSON.stringify(tool.upstream)}</code>
            </dd>
          </div>
        )}
        <div>
          <dt>sha256</dt>
          <dd>
            <code class="hash" title={tool.hash}>
              {short(tool.hash)}
            </code>
          </dd>
        </div>
        <div>
          <dt>First seen</dt>
          <dd>
            <time dateTime={tool.firstSeen} title={tool.firstSeen}>
              {when(tool.firstSeen)}
            </time>
          </dd>
        </div>
        {tool.accepted !== null && (
          <div>
            <dt>Accepted before</dt>
            <dd>
              <code title={tool.accepted.hash}>{short(tool.accepted.hash)}</code>
              {` by ${tool.accepted.by}, ${when(tool.accepted.at)}`}
            </dd>
          </div>
        )}
      </dl>
      <h4>{tool.change === 'new' ? 'Definition' : 'What changed'}</h4>
      <Diff lines={tool.diff} />
      <Decide tool={tool} onDone={onDone} />
    </article>
  );
}

export function ServersView() {
  const { data, error, reload } = useLive(() => getJson<ServersAnswer>('/servers'), ['servers'], []);
  const held = data?.held ?? [];
  return (
    <>
      {error && <p role="alert">{error}</p>}
      <section aria-labelledby="held-h">
        <h2 id="held-h">Held for review ({held.length})</h2>
        <p class="muted">
          A tool whose definition no person accepted is not listed to any agent, nor callable. The text below
          is the server's.
        </p>
        <div aria-live="polite">
          {data === undefined ? (
            <p>Loading…</p>
          ) : held.length === 0 ? (
            <p>No tool definition is waiting for a decision.</p>
          ) : (
            held.map((t) => (
              <HeldTool key={`${t.server}\n${t.upstream}\n${t.hash}`} tool={t} onDone={reload} />
            ))
          )}
        </div>
      </section>
      <section aria-labelledby="pinned-h">
        <h2 id="pinned-h">Accepted</h2>
        {data !== undefined && data.servers.length === 0 ? (
          <p>No tool definition is accepted yet.</p>
        ) : (
          data?.servers.map((s) => (
            <table key={s.server} class="pinned">
              <caption>
                <code>{s.server}</code>
                {` (${s.tools.length} tool${s.tools.length === 1 ? '' : 's'})`}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">sha256</th>
                  <th scope="col">Accepted</th>
                  <th scope="col">By</th>
                </tr>
              </thead>
              <tbody>
                {s.tools.map((t) => (
                  <tr key={t.tool}>
                    <td>
                      <code>{t.tool}</code>
                    </td>
                    <td>
                      <code title={t.hash}>{short(t.hash)}</code>
                    </td>
                    <td>{when(t.acceptedAt)}</td>
                    <td>{`${t.acceptedBy} (${t.via})`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))
        )}
      </section>
    </>
  );
}
