// The standard packs of this release as `harness init` needs them: each pack's commands with their
// effect and tier, read from the pack files themselves (so a release that adds a command or changes
// a tier changes what init writes, with no list here to keep in step).
import type { Effects, Tier } from '@harness/packs';

/** One command of a standard pack. */
export interface CatalogCommand {
  /** `<pack>.<command>`, e.g. `git.status`. */
  readonly id: string;
  readonly title: string;
  readonly effect: Effects;
  readonly tier: Tier;
  /** A write that, as its pack declares it, runs confined: listed in `unattended_when_confined`. */
  readonly confinedWrite: boolean;
}

/** The standard packs of this release, by id. */
export type StandardCatalog = ReadonlyMap<string, readonly CatalogCommand[]>;

/** Reads every standard pack of this release (nothing is probed: the machine plays no part). */
export async function standardCatalog(): Promise<StandardCatalog> {
  const { describeStandardPacks } = await import('@harness/packs');
  const packs = await describeStandardPacks({ probe: false });
  return new Map(
    packs.map((p) => [
      p.id,
      p.commands.map((c) => ({
        id: c.id,
        title: c.title,
        effect: c.effect,
        tier: c.tier,
        confinedWrite: c.confinedWrite,
      })),
    ]),
  );
}

/** How a workspace grants a command: its pack's reads by `pack:<id>`, a write by name, a strict one not at all. */
export type GrantKind = 'read' | 'write' | 'strict';

/** The kind of grant `command` takes. */
export function grantKind(command: CatalogCommand): GrantKind {
  if (command.tier === 'strict') return 'strict';
  return command.effect === 'read' ? 'read' : 'write';
}
