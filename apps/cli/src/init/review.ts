// A workspace file init did not write, shown to the person before it is kept: what it grants, as
// `harness serve` would load it (each agent's commands, which run without asking, which run
// unconfined, each pack's environment and credentials), or, when it does not load, its text. Then
// the question, asked only on a terminal.
import { createInterface } from 'node:readline/promises';
import { parseYamlConfig } from '@harness/config/yaml';
import type { Pack, PackCommand } from '@harness/packs';
import type { Workspace } from '@harness/workspace';

/** The most lines of a file that does not load shown before the rest is left to the person's editor. */
const MAX_TEXT_LINES = 80;

/** The lines that show `text`, the workspace file at `file`, to a person. */
export async function describeWorkspace(file: string, text: string): Promise<string[]> {
  const { formatIssue } = await import('@harness/packs');
  const { loadWorkspace } = await import('@harness/workspace');
  // probe: false runs nothing (not even `<binary> --version`) of a file nobody has accepted yet.
  const loaded = await loadWorkspace({ text, file }, { probe: false });
  if (!loaded.ok) {
    const lines = text.split('\n');
    return [
      `  it does not load (${loaded.issues.map(formatIssue).join('; ')}); its text:`,
      ...lines.slice(0, MAX_TEXT_LINES).map((l) => `  | ${l}`),
      ...(lines.length > MAX_TEXT_LINES ? [`  | … ${lines.length - MAX_TEXT_LINES} more line(s)`] : []),
    ];
  }
  return grants(loaded.workspace, standardOverrides(text));
}

/** The keys each `standard:` entry sets over its bundled pack, by pack id (what init writes sets none). */
function standardOverrides(text: string): ReadonlyMap<string, readonly string[]> {
  const parsed = parseYamlConfig(text);
  const packs = parsed.ok ? (parsed.data as { command_packs?: unknown }).command_packs : undefined;
  const out = new Map<string, string[]>();
  if (!Array.isArray(packs)) return out;
  for (const entry of packs as unknown[]) {
    if (entry === null || typeof entry !== 'object' || !('standard' in entry)) continue;
    const e = entry as Record<string, unknown>;
    const keys = Object.keys(e).filter((k) => !['standard', 'id', 'cwd', 'input_overrides'].includes(k));
    out.set(String(e.id ?? e.standard), keys);
  }
  return out;
}

function grants(ws: Workspace, overrides: ReadonlyMap<string, readonly string[]>): string[] {
  const lines: string[] = [];
  if (ws.sandbox.mode === 'off') lines.push('  sandbox_mode: off: no command of it is confined');
  for (const pack of ws.packs)
    lines.push(`  pack ${pack.id}: ${packLine(pack, overrides.get(pack.id) ?? [])}`);
  if (ws.notify !== undefined)
    lines.push(`  notify: ${ws.notify.targets.length} target(s) told of every approval waiting`);
  const byId = new Map(ws.packs.flatMap((p) => p.commands.map((c) => [c.manifestId, { c, p }] as const)));
  for (const agent of ws.agents) {
    lines.push(`  agent ${agent.id} may run ${agent.commands.length} command(s):`);
    for (const id of agent.commands) {
      const found = byId.get(id);
      if (found !== undefined) lines.push(`    ${id.padEnd(28)} ${commandLine(found.c, found.p)}`);
    }
  }
  if (ws.agents.length === 0) lines.push('  no agent');
  return lines;
}

function packLine(pack: Pack, overrides: readonly string[]): string {
  const own = pack.standard === undefined;
  const parts = [
    own
      ? 'defined in this file (its commands are its own)'
      : `the standard pack ${pack.standard}${overrides.length > 0 ? ` with this file's own ${overrides.join(', ')} over the bundled one` : ''}`,
    `runs in ${pack.cwd}`,
  ];
  // A standard pack's own environment is the release's; only one this file sets is shown.
  const env = Object.entries(pack.env).map(([k, v]) => `${k}=${v}`);
  if (env.length > 0 && (own || overrides.includes('env'))) parts.push(`sets ${env.join(' ')}`);
  if (pack.credentials.length > 0) parts.push(`uses credential(s) ${pack.credentials.join(', ')}`);
  return parts.join('; ');
}

function commandLine(command: PackCommand, pack: Pack): string {
  const when =
    command.tier === 'readonly' && command.effects === 'write'
      ? 'refused (readonly tier)'
      : command.tier === 'open' || (command.tier !== 'strict' && command.effects === 'read')
        ? 'runs without asking'
        : 'waits for your approval';
  const parts = [
    `${command.tier}, ${command.effects}: ${when}`,
    command.sandbox === null ? 'UNCONFINED (sandbox off)' : 'confined',
  ];
  // A standard pack's argv is the release's own; a pack of the file's own shows what it runs.
  if (pack.standard === undefined) parts.push(`argv: ${command.argv.join(' ')}`);
  return parts.join(', ');
}

/** What the person chose for a workspace init did not write. */
export type Choice = 'keep' | 'replace' | 'stop';

/**
 * Asks on the terminal whether to keep the file, replace it with what init writes, or stop (the
 * default: an empty answer, end of input, anything else).
 */
export async function askKeepOrReplace(file: string): Promise<Choice> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  // The end of input (Ctrl-D) closes the interface and leaves the question unanswered: that is stop.
  const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
  try {
    const asked = rl.question(
      `Keep ${file} as it is (k), replace it with what harness init writes (r), or stop (s)? [s] `,
    );
    asked.catch(() => undefined);
    const answer = (await Promise.race([asked, closed])).trim().toLowerCase();
    if (answer === 'k' || answer === 'keep') return 'keep';
    if (answer === 'r' || answer === 'replace') return 'replace';
    return 'stop';
  } catch {
    return 'stop';
  } finally {
    rl.close();
  }
}
