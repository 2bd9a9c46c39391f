// `harness approvals list|show|approve|deny`: the calls waiting for a person on the instance `harness
// serve` uses, and a person's decision on one. The instance is chosen as every harness command
// chooses it; the listing, the decision and how they read are the host's (`@harness/host/operator`),
// shared with `loom approvals` and decided through the same API as the console.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_INSTANCE_DIR,
  type InstanceLocation,
  instanceLocation,
  instancesHome,
  listApprovalsCommand,
} from '@harness/config/instance';
import { parse } from '../args';
import { CliError } from '../errors';
import { err, out } from '../output';
import { projectFor, projectLine } from '../project';

const help = `Usage: harness approvals list [--all] [--json] [--instance <dir>]
       harness approvals show <id> [--json] [--instance <dir>]
       harness approvals approve <id> [--by <name>] [--json] [--instance <dir>]
       harness approvals deny <id> [--by <name>] [--json] [--instance <dir>]

The calls of strict (and cautious write) commands that wait for a person, and a person's decision
on one. The instance is the one harness serve uses: --instance <dir>, else $HARNESS_HOME, else,
run inside a project harness init set up (a directory at or above this one holds
.harness/workspace.yaml), that project's instance, else ${DEFAULT_INSTANCE_DIR}
($XDG_DATA_HOME/harness/default). approve and deny without --instance or $HARNESS_HOME look for
the id in that instance, then in every other instance of that directory (those harness init
creates). An agent told that a call waits is given the exact
command to run: harness approvals approve <id>, with --instance <dir> when serve's instance is
elsewhere.

  list                pending calls, newest first: id, command, tier, agent, run, how long ago it
                      asked, when it expires, the line the command's pack wrote for people (runs)
                      or else the argv it would run, the argument values (values longer than 80
                      characters cut; credentials never shown) and the first 10 lines of what its
                      preview showed. --all: every state
  show <id>           one approval whole: its runs line and the full argv, every preview line
  approve <id>        the identical call may run once, until an hour from now
  deny <id>           the call will not run; the agent is told a person denied it
  --by <name>         who decided, as the audit records it (default person:$USER)
  --json              {"approvals":[...]} or {"approval":{...}}, values whole

Exit codes: 0 ok, 1 the id is unknown or no longer pending, 2 usage, 3 no instance there.`;

/** Runs `harness approvals …`; returns the exit code. */
export async function approvalsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    instance: { type: 'string' },
    json: { type: 'boolean' },
    all: { type: 'boolean' },
    by: { type: 'string' },
  });
  const [sub, ...rest] = positionals;
  if (values.help || sub === undefined) {
    out(help);
    return sub === undefined && !values.help ? 2 : 0;
  }
  if (sub !== 'list' && sub !== 'show' && sub !== 'approve' && sub !== 'deny') {
    throw new CliError(
      'usage',
      `unknown subcommand 'approvals ${sub}'; expected list, show, approve or deny`,
    );
  }
  const [host, operator] = await Promise.all([import('@harness/host'), import('@harness/host/operator')]);
  const project = projectFor({ instance: values.instance });
  if (project !== undefined) err(projectLine(project));
  const chosen = instanceLocation({ flag: values.instance, env: process.env, project: project?.instanceDir });
  const id = sub === 'list' ? undefined : rest[0];
  const { instanceDir, chosenBy } =
    (chosen.chosenBy === 'default' || chosen.chosenBy === 'project') && id !== undefined
      ? await instanceHolding(id, chosen, host.getApproval)
      : chosen;
  if (!existsSync(join(instanceDir, 'instance.json'))) {
    throw new CliError(
      'config',
      `no instance at ${instanceDir} (chosen by ${chosenBy}), so no approvals; harness serve creates it on first use, or pass --instance <dir> (or set HARNESS_HOME) to the instance serve uses`,
    );
  }
  try {
    if (sub === 'list') {
      if (values.by !== undefined || rest.length > 0) {
        throw new CliError('usage', 'approvals list takes no id and no --by');
      }
      const list = await host.listApprovals(instanceDir, values.all ? { status: 'all' } : {});
      if (values.json) out(JSON.stringify({ approvals: list }));
      else process.stdout.write(operator.approvalsListing(list, values.all === true, new Date()));
      return 0;
    }
    const [id, ...more] = rest;
    if (id === undefined || more.length > 0 || values.all) {
      throw new CliError('usage', `approvals ${sub} takes one approval id (see harness approvals list)`);
    }
    if (sub === 'show') return await showApproval(host, operator, instanceDir, id, values);
    const decided = await operator.decideAsPerson(
      instanceDir,
      id,
      sub === 'approve' ? 'approved' : 'denied',
      values.by ?? operator.personName(),
      // The instance the id was found in, when it was not the one chosen.
      listApprovalsCommand('harness', instanceDir === chosen.instanceDir ? values.instance : instanceDir),
    );
    if (!decided.ok) throw new CliError('check_failed', decided.message);
    if (values.json) out(JSON.stringify({ approval: decided.record }));
    else process.stdout.write(operator.decisionText(decided.record));
    return 0;
  } catch (error) {
    // The host's and the store's errors (an unreadable instance, a store that does not open) carry
    // a message written for the person.
    if (error instanceof host.HostError || error instanceof host.StoreError) {
      throw new CliError('config', error.message, { cause: error });
    }
    throw error;
  }
}

/** `harness approvals show <id>`: the approval whole, or exit code 1 when no approval has the id. */
async function showApproval(
  host: typeof import('@harness/host'),
  operator: typeof import('@harness/host/operator'),
  instanceDir: string,
  id: string,
  values: { by?: string | undefined; json?: boolean | undefined },
): Promise<number> {
  if (values.by !== undefined) throw new CliError('usage', 'approvals show takes no --by');
  const record = await host.getApproval(instanceDir, id);
  if (record === undefined) {
    throw new CliError(
      'check_failed',
      `no approval has the id ${id} in ${instanceDir}; see ${listApprovalsCommand('harness', instanceDir)} --all`,
    );
  }
  if (values.json) out(JSON.stringify({ approval: record }));
  else process.stdout.write(operator.approvalBlock(record, new Date(), 'full'));
  return 0;
}

/**
 * The instance of the data directory that holds approval `id`: the chosen one (the project's, or
 * the default) when it does (or when none does, for its own not-found message), else the first
 * other instance directly under {@link instancesHome} whose store has it. An instance whose store
 * does not open is passed over.
 */
async function instanceHolding(
  id: string,
  defaultLocation: InstanceLocation,
  getApproval: (instanceDir: string, id: string) => Promise<unknown>,
): Promise<{ instanceDir: string; chosenBy: string }> {
  const home = instancesHome(process.env);
  let names: string[];
  try {
    names = readdirSync(home).sort();
  } catch {
    return defaultLocation;
  }
  const dirs = [
    defaultLocation.instanceDir,
    ...names.map((n) => join(home, n)).filter((d) => d !== defaultLocation.instanceDir),
  ];
  for (const dir of dirs) {
    if (!existsSync(join(dir, 'instance.json'))) continue;
    const found = await getApproval(dir, id).catch(() => undefined);
    if (found !== undefined) {
      return dir === defaultLocation.instanceDir
        ? defaultLocation
        : { instanceDir: dir, chosenBy: `approval id, in ${home}` };
    }
  }
  return defaultLocation;
}
