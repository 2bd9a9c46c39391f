// The standard packs described outside any workspace: what `harness packs list --standard` shows.
// Each is loaded alone, as `- standard: <name>`, so one pack whose binary is missing here does not
// hide the others; an input whose values a workspace lists is shown open.
import { join } from 'node:path';
import { formatIssue } from '../errors';
import { loadWith } from '../load';
import { confinementGap } from '../load/unattended';
import { type InputsSchema, inputsSchema } from '../manifest';
import type { CommandExample, Effects, Requirement, Tier } from '../types';
import { STANDARD_PACK_IDS } from './library';

/** One command of a standard pack, as {@link describeStandardPacks} shows it. */
export interface StandardCommandInfo {
  /** Manifest id, `<pack>.<command>`. */
  readonly id: string;
  readonly title: string;
  readonly description: string;
  /** The arguments schema the model sees (an input the workspace lists values for is shown open). */
  readonly inputs: InputsSchema;
  readonly effect: Effects;
  readonly tier: Tier;
  /** The program it runs on this machine (the variant in use), e.g. `rg`. */
  readonly program: string;
  readonly examples: readonly CommandExample[];
  /**
   * A write under `cautious` that, as declared, runs confined: only its project written (its .git
   * and .harness read-only), no network, no socket, no credential. What `unattended_when_confined`
   * lets run without approval where this machine confines it (`harness init` lists these).
   */
  readonly confinedWrite: boolean;
}

/** One standard pack of this release, and whether this machine can run it. */
export interface StandardPackInfo {
  readonly id: string;
  readonly description: string;
  readonly requires: readonly Requirement[];
  /** `false` when a requirement is not met here (the pack would be left out); `reason` says why. */
  readonly available: boolean;
  readonly reason?: string;
  readonly commands: readonly StandardCommandInfo[];
}

/**
 * Every standard pack of this release with its commands, each pack loaded on its own as a
 * workspace would declare it. With `probe` (default `true`), requirements are probed on `path`
 * (default: this process's PATH): a pack whose binary is missing is `available: false`, its commands
 * still described.
 */
export async function describeStandardPacks(
  options: { readonly probe?: boolean; readonly path?: string } = {},
): Promise<StandardPackInfo[]> {
  const out: StandardPackInfo[] = [];
  for (const id of STANDARD_PACK_IDS) {
    const text = `command_packs:\n  - standard: ${id}\n`;
    // The cwd plays no part: nothing runs, and examples judge paths as written.
    const file = join(process.cwd(), 'standard-packs.yaml');
    const probed = await loadWith(
      { text, file },
      { probe: options.probe ?? true, ...(options.path === undefined ? {} : { path: options.path }) },
      { openListedValues: true, asDeclared: true },
    );
    const unavailable = probed.ok ? probed.packs.unavailable.find((u) => u.id === id) : undefined;
    // A pack left out here is still described, from its first variant.
    const described =
      probed.ok && unavailable === undefined
        ? probed
        : await loadWith({ text, file }, { probe: false }, { openListedValues: true, asDeclared: true });
    // A standard pack that does not load without probing is a bug of this release (a test loads each).
    if (!described.ok) throw new Error(described.issues.map(formatIssue).join('\n'));
    const pack = described.packs.packs[0]!;
    const commands = pack.commands.map((c) => ({
      id: c.manifestId,
      title: c.title,
      description: c.description,
      inputs: inputsSchema(c),
      effect: c.effects,
      tier: c.tier,
      program: c.argv[0] ?? '',
      examples: c.examples,
      confinedWrite: confinementGap(pack, c) === undefined,
    }));
    out.push({
      id,
      description: pack.description,
      requires: pack.requires,
      available: unavailable === undefined,
      ...(unavailable === undefined ? {} : { reason: unavailable.reason }),
      commands,
    });
  }
  return out;
}
