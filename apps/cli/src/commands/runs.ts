// `harness runs`: the run records of an instance (<instance>/runner/runs.db), oldest first.
import { existsSync } from 'node:fs';
import { type RunRecord, RunStore, runnerPaths } from '@harness/runner';
import { parse } from '../args';
import { embeddedLocation } from '../embedded';
import { err, out, printJson } from '../output';
import { projectFor, projectLine } from '../project';

const help = `Usage: harness runs [--json] [--harness <id>] [--instance <dir>]

Lists the runs the runner recorded: id, harness, status (pending, running, succeeded, failed,
skipped), reason, exit code, trigger (webhook, schedule, resident, manual), the id of the webhook
source that started it and the forge's delivery id, then when it was recorded. A
template_unresolved skip shows the path that had no value. An observed agent run adds a line with
what its own transcript says: tool calls, tokens and the start of its final message. --json prints
a JSON array of the whole records (source, delivery, prompt_delivery, ...).`;

function reasonOf(r: RunRecord): string {
  if (r.reason === null) return '';
  return r.path !== null ? `${r.reason}: ${r.path}` : r.reason;
}

/**
 * A value that came from outside (a delivery id is whatever the request's header said) as one safe
 * token: plain when it is printable ASCII without spaces, else JSON-quoted with every control
 * character, C1 included, escaped, so nothing it holds can drive the terminal.
 */
function token(text: string): string {
  if (/^[\x21-\x7e]+$/.test(text)) return text;
  return JSON.stringify(text).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** How the run started: its trigger, then the source's id and the delivery id when it has them. */
export function startOf(r: RunRecord): string {
  return [
    r.trigger,
    r.source === null ? '' : `source ${r.source}`,
    r.delivery === null ? '' : `delivery ${token(r.delivery)}`,
  ]
    .filter((x) => x !== '')
    .join('  ');
}

const FINAL_SHOWN = 100;

/** The indented line under an observed run, or `undefined`. */
function observationOf(r: RunRecord): string | undefined {
  const o = r.observation;
  if (o === null) return undefined;
  if (o.status !== 'read') return `    not observed (${o.source}): ${o.message}`;
  const tokens =
    o.tokens === null ? 'no token counts' : `${o.tokens.input} in / ${o.tokens.output} out tokens`;
  const flat = (o.final_message ?? '').replace(/\s+/g, ' ');
  const final = flat.length > FINAL_SHOWN ? `${flat.slice(0, FINAL_SHOWN)}…` : flat;
  return `    ${o.source}: ${o.tool_calls} tool call${o.tool_calls === 1 ? '' : 's'}, ${tokens}; final: ${final === '' ? '(none)' : JSON.stringify(final)}`;
}

/** Runs `harness runs`. */
export async function runsCommand(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    { json: { type: 'boolean' }, instance: { type: 'string' }, harness: { type: 'string' } },
    false,
  );
  if (values.help) {
    out(help);
    return 0;
  }
  const project = projectFor({ instance: values.instance });
  if (project !== undefined) err(projectLine(project));
  const db = runnerPaths(embeddedLocation(values.instance, project).instanceDir).db;
  let runs: RunRecord[] = [];
  if (existsSync(db)) {
    const store = new RunStore(db);
    runs = store.list(values.harness === undefined ? {} : { harness: values.harness });
    store.close();
  }
  if (values.json) {
    printJson(runs);
    return 0;
  }
  if (runs.length === 0) {
    out('no runs recorded');
    return 0;
  }
  for (const r of runs) {
    out(
      [
        r.id,
        r.harness,
        r.status,
        reasonOf(r),
        r.exit_code === null ? '' : `exit ${r.exit_code}`,
        startOf(r),
        r.created_at,
      ]
        .filter((x) => x !== '')
        .join('  '),
    );
    const observed = observationOf(r);
    if (observed !== undefined) out(observed);
  }
  return 0;
}
