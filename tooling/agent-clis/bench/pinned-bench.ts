// What every agent-CLI bench does around its measure: install the pinned release (or say why the
// bench is skipped), give it a fresh temp directory and remove that after; a token bench also prints
// its table and writes its rows with the totals of the results handed as structuredContent JSON.
import { writeResult } from '@harness/bench-utils';
import { tempDir } from '@harness/test-utils';
import { formatTokenTable, HandedForm, installPinned, type PinnedPackage, type TokenRow } from '../src/index';

/**
 * Runs the bench `name` with `pkg` installed: `measure` gets the installed binary, its install folder
 * and a fresh temp directory. Without the install it prints why the bench is skipped.
 */
export async function benchWithPinned(
  name: string,
  pkg: PinnedPackage,
  measure: (installed: { bin: string; dir: string }, tmp: string) => Promise<void>,
): Promise<void> {
  const installed = await installPinned(pkg);
  if (!installed.ok) {
    process.stdout.write(`${name} skipped: ${installed.reason}\n`);
    return;
  }
  const tmp = tempDir('harness-agent-clis-bench-');
  try {
    await measure(installed, tmp.path);
  } finally {
    tmp.cleanup();
  }
}

/** A token bench: one session measured, and what its result file says of the numbers. */
export interface TokenBench<Key extends string> {
  /** Runs one session of the installed binary `bin` in `tmp`; the rows measured. */
  session: (bin: string, tmp: string) => Promise<readonly (TokenRow & Record<Key, number>)[]>;
  /** What the numbers count. */
  unit: string;
  /** The columns summed over the rows handed as structuredContent JSON. */
  totals: readonly Key[];
  notes: string;
}

/** Runs the token bench `name` of the pinned `pkg`: prints the table, writes the rows and totals. */
export function runTokenBench<Key extends string>(
  name: string,
  pkg: PinnedPackage,
  bench: TokenBench<Key>,
): Promise<void> {
  return benchWithPinned(name, pkg, async (installed, tmp) => {
    const rows = await bench.session(installed.bin, tmp);
    process.stdout.write(`${formatTokenTable(rows)}\n`);
    const structured = rows.filter((r) => r.handed === HandedForm.structured);
    const handedStructured = {} as Record<Key, number>;
    for (const key of bench.totals)
      handedStructured[key] = structured.reduce<number>((n, r) => n + r[key], 0);
    writeResult(name, {
      unit: bench.unit,
      client: `${pkg.name}@${pkg.version}`,
      rows,
      handedStructured,
      notes: bench.notes,
    });
  });
}
