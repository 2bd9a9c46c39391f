// `unattended_when_confined`: which listed write commands run without a person's approval, decided
// at load against what this machine confines (docs/packs.md, "Confined writes run unattended").
// Everything that could let a run reach past its project — the network, a write outside the
// project or into .git, a local socket, a credential, no sandbox at all — leaves the command asking a person, with a warning that says which.
import { join } from 'node:path';
import type { SandboxPolicy } from '@harness/exec';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import type { Pack, PackCommand } from '../types';
import { within } from './sandbox-walls';
import type { CheckContext } from './types';

/** Why a command does not run confined enough to need no approval, as a code and a sentence. */
export interface ConfinementGap {
  readonly code:
    | 'unconfined'
    | 'network'
    | 'writes_outside'
    | 'writes_protected'
    | 'unix_sockets'
    | 'credential'
    | 'not_cautious_write';
  readonly text: string;
}

/** The names inside the project a confined write never writes (its rules and executable config). */
const KEPT_READ_ONLY = ['.git/', '.harness/'];

/**
 * Why `command` of `pack` would not run confined: unconfined here, with a network, writing outside
 * the pack's cwd or into its `.git` or `.harness`, with a Unix socket or a credential in its
 * environment. `undefined`: it runs confined (the home is always cut to an allow-list).
 */
export function confinementGap(pack: Pack, command: PackCommand): ConfinementGap | undefined {
  if (command.effects !== 'write' || command.tier !== 'cautious') {
    const what = command.effects === 'write' ? `tier ${command.tier}` : 'a read';
    return {
      code: 'not_cautious_write',
      text: `it is ${what}, not a write under cautious: the tier decides`,
    };
  }
  const sandbox = command.sandbox;
  if (sandbox === null) {
    return {
      code: 'unconfined',
      text: 'it runs unconfined on this machine (no sandbox block, sandbox: false, sandbox_mode off, or no working sandbox mechanism)',
    };
  }
  return sandboxGap(pack.cwd, sandbox) ?? credentialGap(pack);
}

function sandboxGap(cwd: string, sandbox: SandboxPolicy): ConfinementGap | undefined {
  const network = sandbox.network ?? 'none';
  if (network !== 'none') return { code: 'network', text: `it has the network (network: ${network})` };
  const outside = (sandbox.write ?? []).filter((path) => !within(path, [cwd]));
  if (outside.length > 0) {
    return { code: 'writes_outside', text: `it writes outside the project: ${outside.join(', ')}` };
  }
  const protect = sandbox.protect ?? [];
  const open = KEPT_READ_ONLY.filter((name) => !protect.includes(join(cwd, name)));
  if (open.length > 0) {
    return {
      code: 'writes_protected',
      text: `it writes the project's ${open.map((n) => n.slice(0, -1)).join(' and ')}, which a person later trusts unconfined`,
    };
  }
  if ((sandbox.unixSockets ?? []).length > 0) {
    return { code: 'unix_sockets', text: `it may connect to ${sandbox.unixSockets!.join(', ')}` };
  }
  // The home needs no check of its own: a confined command with `read: all` always gets the home by
  // allow-list (resolveSandbox), and one with a read list sees nothing of the home it does not list.
  return undefined;
}

function credentialGap(pack: Pack): ConfinementGap | undefined {
  if (pack.credentials.length === 0) return undefined;
  return {
    code: 'credential',
    text: `its environment holds the credential ${pack.credentials.join(', ')}, a secret of the person's`,
  };
}

/**
 * The packs with `unattended` kept only on the commands that run confined here; each listed command
 * that does not gets a warning naming why it still asks. Run after the sandbox mode is applied.
 */
export function applyUnattended(
  packs: readonly Pack[],
  indexOf: (packId: string) => number,
  ctx: CheckContext,
  warnings: PacksIssue[],
): Pack[] {
  return packs.map((pack) => {
    if (!pack.commands.some((c) => c.unattended)) return pack;
    const commands = pack.commands.map((command) => {
      if (!command.unattended) return command;
      const gap = confinementGap(pack, command);
      if (gap === undefined) return command;
      warnings.push(
        ctx.issue(
          Code.not_confined,
          ['command_packs', indexOf(pack.id), 'unattended_when_confined'],
          `${command.manifestId} is listed in unattended_when_confined but asks a person for each call: ${gap.text}`,
          { command: command.manifestId, reason: gap.code },
          true,
        ),
      );
      const { unattended: _dropped, ...asks } = command;
      return Object.freeze(asks);
    });
    return Object.freeze({ ...pack, commands: Object.freeze(commands) });
  });
}
