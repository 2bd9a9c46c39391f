// `harness doctor`: one line per check (configuration, binaries and versions, broker reachable,
// socket permissions, store health, the instance's audit key) and a verdict. Exit 1 when any check fails.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AppArmorUsernsRestriction } from '@harness/exec';
import { parse } from '../args';
import { bundledLoomCli, describeServes, embeddedFailure, planEmbedded, scopeOf } from '../embedded';
import { sessionFlags, sessionOptions } from '../flags';
import { dim, err, green, out, printJson, red } from '../output';
import { projectFor, projectLine } from '../project';
import { runnerChecks } from '../runner-doctor';
import { resolveOptions, type SessionOptions } from '../session';
import { gitIdentityCheck } from './doctor-git-identity';
import { projectChecks } from './doctor-project';
import { appArmorInstructions, fixAppArmor, sandboxCheck } from './doctor-sandbox';

const help = `Usage: harness doctor [--json] [--fix] [configuration]

Checks, one line each: Node.js version; the host configuration files, or for the embedded default
exactly what serve checks on that instance before it starts (its record, its store — which one,
SQLite or PostgreSQL, and whether it answers — credentials file mode, workspace, agent or scope); the
instance's audit key (mode 0600) and its public key, and that key as recorded outside the instance
(in $XDG_CONFIG_HOME/harness/audit-keys, what loom audit verify checks against); the host CLI and
the binaries the example packs use, with versions; the git identity the git pack commits as
(user.name and user.email of your global git configuration); confinement (bubblewrap or sandbox-exec, under
the workspace's sandbox_mode); each MCP server the workspace declares (started and closed again:
it answers tools/list with N tools, confined or not and why; one that fails to start fails); the
broker socket (reachable, mode 0600). Exit 1 when any check
fails; a warning (an optional binary missing, no broker running yet) does not fail.

Where AppArmor blocks bubblewrap (Ubuntu 23.10 and later: kernel.apparmor_restrict_unprivileged_userns
= 1, and bwrap fails setting up its user namespace), the sandbox row says so and the AppArmor profile
for the bwrap found is printed below it, with the commands that install it as root.
--fix                writes that profile to /etc/apparmor.d/bwrap and loads it (apparmor_parser -r);
                     as root only. It fixes nothing else.

--runner-config <file> adds the runner's rows: the file loads, each source's secret variable is
set, each agent executable is on PATH, and a warning for each harness with untrusted_inline.`;

type Status = 'ok' | 'warn' | 'fail';
interface Check {
  name: string;
  status: Status;
  detail: string;
  /** The sandbox row's AppArmor restriction: the profile to install, printed below the row. */
  apparmor?: AppArmorUsernsRestriction;
}

function version(binary: string, args = ['--version']): string | undefined {
  try {
    return execFileSync(binary, args, {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
      .split('\n')[0]
      ?.trim();
  } catch {
    return undefined;
  }
}

type Add = (name: string, status: Status, detail: string) => void;

/** What the configuration check learned that the later checks need. */
interface Found {
  /** The broker socket to probe. */
  socketPath: string | undefined;
  /** The instance whose store to check. */
  instanceDir: string | undefined;
  /** The embedded default's workspace file, whose sandbox_mode the sandbox check reads. */
  workspaceFile: string | undefined;
  /** The host's own checks already covered the store. */
  storeChecked: boolean;
}

/** Runs `harness doctor`. */
export async function doctorCommand(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    {
      ...sessionFlags,
      json: { type: 'boolean' },
      fix: { type: 'boolean' },
      'runner-config': { type: 'string' },
    },
    false,
  );
  if (values.help) {
    out(help);
    return 0;
  }
  const checks: Check[] = [];
  const add: Add = (name, status, detail) => {
    checks.push({ name, status, detail });
  };
  checkNode(add);
  const found = await checkConfiguration(values, add);
  if (checkBinaries(add)) {
    const identity = await gitIdentityCheck();
    add('git identity', identity.status, identity.detail);
  }
  const sandbox = await sandboxCheck(found.workspaceFile);
  checks.push({ name: 'sandbox', ...sandbox });
  if (found.workspaceFile !== undefined) {
    const { serverChecks } = await import('./doctor-servers');
    for (const c of await serverChecks(found.workspaceFile, found.instanceDir, values))
      add(c.name, c.status, c.detail);
  }
  if (found.socketPath !== undefined) await checkBrokerSocket(found.socketPath, found, add);
  if (found.instanceDir !== undefined && !found.storeChecked) await checkStore(found.instanceDir, add);
  if (found.instanceDir !== undefined && existsSync(join(found.instanceDir, 'loom.db'))) {
    add('store size', 'ok', storeSize(found.instanceDir));
  }
  if (found.instanceDir !== undefined && existsSync(join(found.instanceDir, 'instance.json'))) {
    const key = checkAuditKey(found.instanceDir, add);
    if (key !== undefined) await checkRecordedKey(found.instanceDir, key, add);
  }
  for (const c of await projectChecks(process.cwd())) add(c.name, c.status, c.detail);
  if (values['runner-config'] !== undefined) {
    for (const c of runnerChecks(values['runner-config'])) add(c.name, c.status, c.detail);
  }
  if (values.fix === true) {
    const fixed =
      sandbox.apparmor !== undefined
        ? fixAppArmor(sandbox.apparmor)
        : {
            status: 'ok' as const,
            detail:
              'nothing to fix: --fix installs the AppArmor profile for bubblewrap where AppArmor blocks it, which it does not here',
          };
    add('fix', fixed.status, fixed.detail);
  }
  return report(checks, values.json === true);
}

/** Prints the checks (one line each, or JSON) and the verdict; the exit code. */
function report(checks: readonly Check[], json: boolean): number {
  const failed = checks.filter((c) => c.status === 'fail').length;
  if (json) printJson({ ok: failed === 0, checks });
  else {
    for (const c of checks) {
      const mark = c.status === 'ok' ? green('ok  ') : c.status === 'warn' ? dim('warn') : red('FAIL');
      out(`${mark} ${c.name.padEnd(26)} ${c.detail}`);
      if (c.apparmor !== undefined) for (const line of appArmorInstructions(c.apparmor)) out(line);
    }
    out(failed === 0 ? green('verdict: healthy') : red(`verdict: ${failed} check(s) failed`));
  }
  return failed === 0 ? 0 : 1;
}

/** The Node.js version: 20 or newer. */
function checkNode(add: Add): void {
  const major = Number(process.versions.node.split('.')[0]);
  add(
    'node',
    major >= 20 ? 'ok' : 'fail',
    `Node.js ${process.versions.node}${major >= 20 ? '' : ' (20 or newer is required)'}`,
  );
}

/**
 * The host configuration files, or for the embedded default what serve checks before it starts. A
 * failure part way keeps the rows and the places found before it.
 */
async function checkConfiguration(
  values: Record<string, string | boolean | string[] | undefined>,
  add: Add,
): Promise<Found> {
  const found: Found = {
    socketPath: undefined,
    instanceDir: undefined,
    workspaceFile: undefined,
    storeChecked: false,
  };
  try {
    const resolved = await resolveOptions(sessionOptions(values));
    if (resolved.embedded) {
      // In a project harness init set up, doctor checks what serve would serve there.
      const project = projectFor(sessionOptions(values));
      if (project !== undefined) err(projectLine(project));
      await checkEmbedded({ ...sessionOptions(values), project }, found, add);
    } else await checkHostConfigs(resolved, found, add);
  } catch (error) {
    add('configuration', 'fail', (error as Error).message);
  }
  return found;
}

/** The embedded default: its instance, and exactly what serve runs before its broker listens. */
async function checkEmbedded(options: SessionOptions, found: Found, add: Add): Promise<void> {
  const plan = await planEmbedded(options);
  const instanceDir = plan.location.instanceDir;
  found.instanceDir = instanceDir;
  found.workspaceFile = plan.workspaceFile;
  found.socketPath = plan.location.socketPath;
  add(
    'configuration',
    'ok',
    `no host configuration: ${options.project === undefined ? 'the embedded default' : `the project ${options.project.dir}`} (instance ${instanceDir}, chosen by ${plan.location.chosenBy}; serves ${describeServes(plan.serves)} of ${plan.workspaceFile})`,
  );
  // Exactly what serve runs before its broker listens, through the host's own checks.
  const host = await import('@harness/host');
  if (plan.exists) {
    for (const c of await host.checkBroker({ instanceDir, scope: scopeOf(plan.serves) })) {
      add(c.name, c.ok ? 'ok' : 'fail', c.detail);
    }
    found.storeChecked = true;
  } else {
    add('instance', 'warn', `no instance at ${instanceDir} yet (serve creates it)`);
    try {
      await host.checkServes(plan.workspaceFile, plan.serves);
      add('workspace', 'ok', `${plan.workspaceFile} (serves ${describeServes(plan.serves)})`);
    } catch (error) {
      add('workspace', 'fail', embeddedFailure(error, plan, options).message);
    }
  }
}

/** Each host configuration file given: it reads, and its cliPath is executable. */
async function checkHostConfigs(
  resolved: Pick<Awaited<ReturnType<typeof resolveOptions>>, 'commandsPath' | 'authoringPath'>,
  found: Found,
  add: Add,
): Promise<void> {
  const commands = await import('@harness/commands');
  for (const [label, path, read] of [
    ['commands config', resolved.commandsPath, commands.readCommandsConfig],
    ['authoring config', resolved.authoringPath, commands.readAuthoringConfig],
  ] as const) {
    if (path === undefined) continue;
    const result = read(path);
    if (!result.ok)
      add(label, 'fail', `${path}: ${result.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    else {
      add(label, 'ok', path);
      const t = result.value.transport;
      if (t.kind === 'broker') found.socketPath ??= t.socketPath;
      else found.instanceDir ??= t.instanceDir;
      const cli = result.value.cliPath;
      const executable = existsSync(cli) && canExecute(cli);
      add(
        `${label} cliPath`,
        executable ? 'ok' : 'fail',
        `${cli}${executable ? '' : ' is missing or not executable'}`,
      );
    }
  }
}

/** The bundled loom CLI, and the binaries the example packs use, with their versions; whether git is there. */
function checkBinaries(add: Add): boolean {
  const loom = bundledLoomCli();
  add(
    'loom',
    existsSync(loom) ? 'ok' : 'fail',
    existsSync(loom) ? `${loom} (@harness/loom ${loomVersion()})` : `${loom} missing: run pnpm build`,
  );
  const git = version('git');
  add('git', git ? 'ok' : 'warn', git ?? 'not found: the example repo pack is left out');
  const jq = version('jq');
  add(
    'jq',
    jq ? 'ok' : 'warn',
    jq ?? 'not found: the example json-tools pack is left out (apt-get install jq / brew install jq)',
  );
  return git !== undefined;
}

/** The broker socket: there, mode 0600, and answering `hello`. */
async function checkBrokerSocket(socketPath: string, found: Found, add: Add): Promise<void> {
  if (!existsSync(socketPath)) {
    add(
      'broker',
      'warn',
      `no socket at ${socketPath} (harness serve starts one; loom broker start runs one)`,
    );
    return;
  }
  // Asynchronous on purpose: on Node 20 a synchronous stat of a socket leaves later ESM
  // resolution of better-sqlite3 un-realpathed, which breaks the store check below.
  const mode = (await stat(socketPath)).mode & 0o777;
  add(
    'socket permissions',
    mode === 0o600 ? 'ok' : 'fail',
    `${socketPath} mode ${mode.toString(8)}${mode === 0o600 ? '' : ' (expected 600)'}`,
  );
  const { brokerHello } = await import('@harness/protocol/client');
  const hello = await brokerHello(socketPath, { timeoutMs: 3000 });
  // A dead socket of the embedded default is what a crashed serve leaves; the next serve
  // replaces it, so it does not fail the instance.
  add(
    'broker',
    hello.ok ? 'ok' : found.storeChecked || found.instanceDir !== undefined ? 'warn' : 'fail',
    hello.ok
      ? `reachable: ${JSON.stringify(hello.value)}`
      : `not reachable: ${JSON.stringify(hello.failure)}${found.instanceDir !== undefined ? ' (a stale socket; serve replaces it)' : ''}`,
  );
}

/** The instance's store: which one, and that it opens (SQLite) or answers at this host's schema. */
async function checkStore(instanceDir: string, add: Add): Promise<void> {
  if (!existsSync(join(instanceDir, 'instance.json'))) {
    add('store', 'warn', `no instance at ${instanceDir} yet (created on first harness serve)`);
    return;
  }
  try {
    const { describeStoreTarget, openStore, readInstance } = await import('@harness/host');
    const target = readInstance(instanceDir).store;
    const store = await openStore(instanceDir);
    await store.close();
    add(
      'store',
      'ok',
      `${describeStoreTarget(target)} ${target.kind === 'sqlite' ? 'opens' : 'answers; its schema is the version this host needs'}`,
    );
  } catch (error) {
    add('store', 'fail', (error as Error).message);
  }
}

function loomVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(dirname(bundledLoomCli()), '..', 'package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'version unknown';
  } catch {
    return 'version unknown';
  }
}

function canExecute(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The instance's audit key (docs/audit.md): readable by its owner only, and its public key as
 * `ed25519:<base64url of the 32 raw bytes>` — what `loom audit verify --public-key` pins and what a
 * person keeps beside a copy of an export.
 */
function checkAuditKey(instanceDir: string, add: Add): string | undefined {
  const file = join(instanceDir, 'audit-key.pem');
  if (!existsSync(file)) {
    add('audit key', 'warn', `no ${file} yet (made the next time the instance's store is opened)`);
    return undefined;
  }
  try {
    const mode = statSync(file).mode & 0o777;
    const { x } = createPublicKey(createPrivateKey(readFileSync(file))).export({ format: 'jwk' }) as {
      x?: string;
    };
    if (x === undefined) throw new Error('not an Ed25519 key');
    const where = `${file} mode ${mode.toString(8)}`;
    add(
      'audit key',
      mode === 0o600 ? 'ok' : 'fail',
      `public key ed25519:${x} (${where}${mode === 0o600 ? '' : ', expected 600: chmod 600 it'})`,
    );
    return `ed25519:${x}`;
  } catch (error) {
    add(
      'audit key',
      'fail',
      `${file} is not readable as the instance's Ed25519 key: ${(error as Error).message}`,
    );
    return undefined;
  }
}

/**
 * The instance's public key as recorded outside it, in the person's user config (docs/audit.md,
 * "Where the key is recorded"): the same key as the instance's own, or the key was replaced.
 */
async function checkRecordedKey(instanceDir: string, key: string, add: Add): Promise<void> {
  const { auditKeyRecordFile, readRecordedAuditKey } = await import('@harness/store');
  try {
    const recorded = readRecordedAuditKey(instanceDir);
    if (recorded === undefined) {
      add(
        'audit key record',
        'warn',
        `not recorded outside the instance (${auditKeyRecordFile(instanceDir)}): loom audit verify can only check the instance's own key; record it once you trust it: loom audit verify --record --instance ${instanceDir}`,
      );
    } else if (recorded.publicKey === key) {
      add('audit key record', 'ok', `${recorded.publicKey}, recorded in ${recorded.file}`);
    } else {
      add(
        'audit key record',
        'fail',
        `${recorded.file} records ${recorded.publicKey}, not the instance's key ${key}: the instance's key was replaced; check the record with loom audit verify --instance ${instanceDir}`,
      );
    }
  } catch (error) {
    add('audit key record', 'fail', (error as Error).message);
  }
}

/** The store's size on disk: the database and its write-ahead log, and how to prune it. */
function storeSize(instanceDir: string): string {
  const size = (suffix: string) => {
    try {
      return statSync(join(instanceDir, `loom.db${suffix}`)).size;
    } catch {
      return 0;
    }
  };
  const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
  return `${mib(size('') + size('-wal'))} (database ${mib(size(''))}, write-ahead log ${mib(size('-wal'))}); prune old audit events with 'loom audit prune --before 30d --instance ${instanceDir}'`;
}
