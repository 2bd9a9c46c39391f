// The operator's subcommands: broker, approvals, audit, init, migrate. They load the host and its
// store (SQLite, packs; the PostgreSQL client only for an instance on PostgreSQL).
import { parseDuration, RETENTION_WINDOW } from '@harness/config';
import { instanceLocation } from '@harness/config/instance';
import { warnQueuePath } from '@harness/protocol';
import { approvals } from './approvals';
import { type Parsed, parseArgs, str } from './args';
import { audit } from './audit';
import { LOOM_ERROR_EXIT, LoomError, LoomErrorCode } from './errors';
import { HELP } from './help';

type Out = (text: string) => void;

/**
 * The instance an operator command works on, chosen as every `harness` command chooses it:
 * `--instance`, else `$HARNESS_HOME`, else the default instance (`~/.local/share/harness/default`).
 * `LOOM_INSTANCE_DIR`, loom's own default of `--instance` before there was a shared one, still
 * stands in for the flag, so a script that sets it keeps working on the instance it names.
 */
const instanceOf = (dir: string | undefined): string =>
  instanceLocation({ flag: dir ?? (process.env.LOOM_INSTANCE_DIR || undefined), env: process.env })
    .instanceDir;

/** Runs `loom <cmd> …` for the operator subcommands; returns the exit code. */
export async function adminMain(cmd: string, argv: readonly string[], out: Out): Promise<number> {
  const err = (text: string): void => {
    process.stderr.write(text);
  };
  try {
    switch (cmd) {
      case 'broker':
        return await broker(argv, out);
      case 'approvals':
        return await approvals(argv, out, instanceOf);
      case 'audit':
        return await audit(argv, out, instanceOf);
      case 'migrate':
        return await migrate(argv, out);
      default:
        return await init(argv, out);
    }
  } catch (error) {
    if (error instanceof LoomError) {
      err(`loom ${cmd}: ${error.message}\n`);
      return LOOM_ERROR_EXIT[error.code];
    }
    const code = (error as { code?: unknown }).code;
    // The host's and the store's errors carry a message written for the operator.
    const name = (error as Error).name;
    if (typeof code === 'string' && (name === 'HostError' || name === 'StoreError')) {
      err(`loom ${cmd}: ${(error as Error).message}\n`);
      return 1;
    }
    err(`loom ${cmd}: internal error: ${(error as Error).message}\n`);
    if (argv.includes('--debug')) err(`${(error as Error).stack}\n`);
    return 4;
  }
}

async function broker(argv: readonly string[], out: Out): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    out(HELP.broker);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'start')
    throw new LoomError(LoomErrorCode.usage, `unknown subcommand "broker ${sub}"; expected start`);
  const p = parseArgs(rest, {
    instance: true,
    socket: true,
    queue: true,
    scope: true,
    retention: true,
    debug: false,
  });
  if (p.flags.help) {
    out(HELP.broker);
    return 0;
  }
  const retentionText = str(p, 'retention');
  const retentionMs = retentionText === undefined ? undefined : readRetention(retentionText);
  const socketPath = socketFlag(p);
  const scope = str(p, 'scope');
  if (!socketPath || !scope)
    throw new LoomError(
      LoomErrorCode.usage,
      'broker start needs --socket <path> --scope <file> (and --instance <dir> unless the instance is $HARNESS_HOME or the default one)',
    );
  // Signals are handled from before the broker exists, so a stop asked for during start-up (or
  // right after the ready line) still closes it cleanly.
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    const { startBroker } = await import('@harness/host');
    const broker = await startBroker({
      instanceDir: instanceOf(str(p, 'instance')),
      socketPath,
      scope,
      ...(retentionMs !== undefined ? { retentionMs } : {}),
    });
    out(
      // `queue` is the socket's old name in this line, kept for scripts that read it.
      `${JSON.stringify({ ready: true, socket: broker.socketPath, queue: broker.socketPath, run: broker.scope.run, agent: broker.scope.actor, pid: process.pid })}\n`,
    );
    await stopped;
    await broker.close();
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
  return 0;
}

/** `--socket`, or `--queue`, its old name (one deprecation warning on stderr); both at once is a usage error. */
function socketFlag(p: Parsed): string | undefined {
  const socket = str(p, 'socket');
  const queue = str(p, 'queue');
  if (queue === undefined) return socket;
  if (socket !== undefined)
    throw new LoomError(
      LoomErrorCode.usage,
      'give --socket only: --queue is its old name, and both are given',
    );
  warnQueuePath('--queue', '--socket');
  return queue;
}

/** `--retention`: a retention window (`30d`, `12h`, `90m`) in ms, the form `audit prune --before` reads. */
export function readRetention(text: string): number {
  const ms = parseDuration(text, RETENTION_WINDOW);
  if (ms === undefined)
    throw new LoomError(
      LoomErrorCode.usage,
      `--retention must be a duration such as 30d, 12h or 90m, found '${text}'`,
    );
  return ms;
}

async function init(argv: readonly string[], out: Out): Promise<number> {
  const p = parseArgs(argv, { workspace: true, store: true, 'pg-schema': true, json: false, debug: false });
  if (p.flags.help) {
    out(HELP.init);
    return 0;
  }
  const [dir, ...more] = p.positional;
  const workspace = str(p, 'workspace');
  if (!dir || more.length > 0 || !workspace)
    throw new LoomError(
      LoomErrorCode.usage,
      'usage: loom init <dir> --workspace <file> [--store sqlite|postgres] [--pg-schema <name>]',
    );
  const kind = str(p, 'store') ?? 'sqlite';
  if (kind !== 'sqlite' && kind !== 'postgres')
    throw new LoomError(LoomErrorCode.usage, `--store must be sqlite or postgres, found '${kind}'`);
  const schema = str(p, 'pg-schema');
  if (schema !== undefined && kind !== 'postgres')
    throw new LoomError(
      LoomErrorCode.usage,
      '--pg-schema names the schema of a PostgreSQL store; add --store postgres',
    );
  const [host, { describeStoreTarget, postgresTargetFromEnv, recordNewInstanceKey }] = await Promise.all([
    import('@harness/host'),
    import('@harness/store'),
  ]);
  // The connection comes from the libpq environment (DATABASE_URL, PGHOST, …); no password is kept.
  const store =
    kind === 'postgres' ? postgresTargetFromEnv(schema === undefined ? {} : { schema }) : undefined;
  const info = await host.initInstance(dir, workspace, store === undefined ? {} : { store });
  // The public key is recorded outside the instance, in the person's user config, where the
  // instance's sandboxes cannot rewrite it: what `loom audit verify` checks against (docs/audit.md).
  try {
    const recorded = recordNewInstanceKey(info.dir);
    process.stderr.write(`audit key ${recorded.publicKey} recorded in ${recorded.file}\n`);
  } catch (error) {
    process.stderr.write(
      `warning: ${(error as Error).message}; loom audit verify will warn that only the instance's own key is available\n`,
    );
  }
  if (p.flags.json) out(`${JSON.stringify(info)}\n`);
  else
    out(
      `initialised ${info.dir} (workspace ${info.workspaceFile}; store ${describeStoreTarget(info.store)})\n`,
    );
  return 0;
}

/** `loom migrate`: brings the instance's store to the schema version this host writes. */
async function migrate(argv: readonly string[], out: Out): Promise<number> {
  const p = parseArgs(argv, { instance: true, json: false, debug: false });
  if (p.flags.help) {
    out(HELP.migrate);
    return 0;
  }
  if (p.positional.length > 0)
    throw new LoomError(LoomErrorCode.usage, `migrate takes no arguments, found ${p.positional.join(' ')}`);
  const [host, { describeStoreTarget, migrateStoreTarget }] = await Promise.all([
    import('@harness/host'),
    import('@harness/store'),
  ]);
  const { store } = host.readInstance(instanceOf(str(p, 'instance')));
  const { from, to } = await migrateStoreTarget(store);
  const where = describeStoreTarget(store);
  if (p.flags.json) out(`${JSON.stringify({ store: where, from, to })}\n`);
  else
    out(
      from === to
        ? `${where}: schema version ${to}, nothing to migrate\n`
        : `${where}: migrated from schema version ${from} to ${to}\n`,
    );
  return 0;
}
