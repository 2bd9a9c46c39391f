// `harness tmpl check|render`: check an event or run template against the run context's allow sets,
// or render it against a real webhook delivery, exactly as a triggered run would. Not pack argv.
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { buildEnvelope, buildRenderContext, extract, parseRunTemplate } from '@harness/events';
import { render, renderArgv, type Template } from '@harness/tmpl';
import { parse } from '../args';
import { CliError } from '../errors';
import { out, printJson } from '../output';

const help = `Usage:
  harness tmpl check <template> [--location argv|prompt] [--untrusted-inline] [--json]
  harness tmpl render <template>... --delivery <file.json> --scheme github|gitea|forgejo --event <name>
                      [--location argv|prompt] [--trusted-actor <name>]... [--untrusted-inline] [--json]

These are the runner's event and run templates ({{event.*}}, {{run.*}}, …: a triggered run's argv
and prompt), not a pack command's argv: a pack's placeholders are its own inputs; check them with
\`harness packs check\`, and see the argv a call would run with
\`harness packs render <command> --args <json>\`.

check   parses the template and checks every placeholder against the run context's allow set for
        the location (argv: one argv element; prompt: a prompt template). Exit 1 on any issue.
render  extracts the typed event from the delivery (the event name comes from the forge's header,
        e.g. X-GitHub-Event), builds the run context and renders. With --location argv each
        template argument is one argv element and the result is printed as a JSON array.

A template that starts with a dash goes after '--': harness tmpl check -- --pr={{event.number}}

Options:
  --location           argv (default) or prompt
  --untrusted-inline   allow {{untrusted path}} fences in a prompt template
  --trusted-actor      a sender whose name may appear as event.actor (repeatable)
  --json               print the result as JSON`;

// An unknown path is most often a pack input ({{dir}}) checked here by mistake.
const PACK_HINT =
  "note: tmpl checks event and run templates (a triggered run's context), not pack argv; a pack command's placeholders are its inputs: check them with `harness packs check <workspace.yaml>` and see a call's argv with `harness packs render <command> --args <json>`";

function location(value: string | undefined): 'argv' | 'prompt' {
  if (value === undefined || value === 'argv' || value === 'prompt') return value ?? 'argv';
  throw new CliError('usage', `--location must be argv or prompt, found '${value}'`);
}

/** Runs `harness tmpl`. */
export async function tmplCommand(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  const { values, positionals } = parse(rest, {
    location: { type: 'string' },
    'untrusted-inline': { type: 'boolean' },
    'trusted-actor': { type: 'string', multiple: true },
    delivery: { type: 'string' },
    scheme: { type: 'string' },
    event: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help || verb === undefined || verb === '--help' || verb === '-h') {
    out(help);
    return verb === undefined ? 2 : 0;
  }
  if (positionals.length === 0)
    throw new CliError('usage', `tmpl ${verb} needs a template argument (see --help)`);
  const where = location(values.location);
  const untrustedInline = values['untrusted-inline'] === true;

  const parsed: Template[] = [];
  const problems: { template: string; code: string; message: string; line: number; column: number }[] = [];
  for (const source of positionals) {
    const result = parseRunTemplate(source, where, { untrustedInline, onWarn: () => {} });
    if (result.ok) parsed.push(result.template);
    else for (const issue of result.issues) problems.push({ template: source, ...pick(issue) });
  }

  if (verb === 'check') {
    if (values.json) printJson({ ok: problems.length === 0, issues: problems });
    else if (problems.length === 0) out(`ok: ${positionals.length} template(s) valid for ${where}`);
    else {
      for (const p of problems)
        out(`${p.line}:${p.column} ${p.code}: ${p.message}  in ${JSON.stringify(p.template)}`);
      if (problems.some((p) => p.code === 'unknown_path')) out(PACK_HINT);
    }
    return problems.length === 0 ? 0 : 1;
  }
  if (verb !== 'render')
    throw new CliError('usage', `unknown tmpl command '${verb}'; expected check or render`);
  if (problems.length > 0) {
    for (const p of problems) out(`${p.line}:${p.column} ${p.code}: ${p.message}`);
    return 1;
  }
  const context = renderContext(values, untrustedInline);
  if (where === 'argv') {
    const rendered = renderArgv(parsed, context, { onWarn: () => {} });
    printJson(rendered);
  } else {
    const text = parsed.map((t) => render(t, context, { fenceSource: 'cli', onWarn: () => {} })).join('\n');
    if (values.json) printJson({ text });
    else out(text);
  }
  return 0;
}

function pick(issue: { code: string; message: string; line: number; column: number }) {
  return { code: issue.code, message: issue.message, line: issue.line, column: issue.column };
}

function renderContext(
  values: {
    delivery?: string | undefined;
    scheme?: string | undefined;
    event?: string | undefined;
    'trusted-actor'?: string[] | undefined;
  },
  untrustedInline: boolean,
) {
  if (values.delivery === undefined) return buildRenderContext({});
  if (values.scheme === undefined || values.event === undefined) {
    throw new CliError(
      'usage',
      '--delivery needs --scheme (github, gitea or forgejo) and --event (the event header, e.g. pull_request)',
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(values.delivery, 'utf8'));
  } catch (error) {
    throw new CliError('usage', `cannot read the delivery ${values.delivery}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const trustedActors = values['trusted-actor'] ?? [];
  const extraction = extract({ scheme: values.scheme, event: values.event, body, trustedActors });
  if (extraction.dropped.some((d) => d.rule === 'scheme_unsupported')) {
    throw new CliError('usage', `--scheme must be github, gitea or forgejo, found '${values.scheme}'`);
  }
  const loaded = buildEnvelope({
    source: `webhook.${values.scheme}`,
    scheme: values.scheme,
    event: values.event,
    delivery: basename(values.delivery, '.json').replace(/[^A-Za-z0-9_-]/g, '-'),
    body,
    trustedActors,
  });
  return buildRenderContext({
    run: { id: 'cli-render', trigger: 'webhook', source: `webhook.${values.scheme}`, startedAt: new Date() },
    event: { ...loaded, file: resolve(values.delivery) },
    untrustedInline,
  });
}
