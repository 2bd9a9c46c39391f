// The targets of a Makefile that `make.run` can take: the names on `name:` rule lines, read without
// running make (which would evaluate the file's `$(shell …)` calls).

/** What a Makefile names: the targets `make.run` may take, and how many names were passed over. */
export interface MakeTargets {
  readonly targets: readonly string[];
  /** Special (`.PHONY`), pattern (`%.o`) and variable (`$(OUT)`) targets, left out. */
  readonly skipped: number;
}

/** The pattern `make.run`'s `target` input accepts (packages/packs/standard/make.yaml). */
const TARGET = /^[A-Za-z0-9_][A-Za-z0-9_.+/%-]*$/;

/**
 * A rule line: names, then `:` or `::` not followed by `=` or `:` (so `X := 1`, `X ::= 1` and
 * `X :::= 1` are assignments), with no `=` before the colon (`X = a:b` is an assignment too).
 */
const RULE = /^([^\s:#=][^:#=]*?)\s*::?(?![:=])/;

/** The targets of a Makefile's text, in the order they first appear, each once. */
export function makeTargets(text: string): MakeTargets {
  const targets: string[] = [];
  let skipped = 0;
  let inDefine = false;
  for (const line of text.split(/\r?\n/)) {
    // A recipe line starts with a tab; a `define` block holds text, not rules.
    if (line.startsWith('\t')) continue;
    const trimmed = line.trim();
    if (/^define\b/.test(trimmed)) inDefine = true;
    if (inDefine) {
      if (/^endef\b/.test(trimmed)) inDefine = false;
      continue;
    }
    const rule = RULE.exec(line);
    if (rule === null) continue;
    for (const name of rule[1]!.split(/\s+/).filter((n) => n !== '')) {
      if (name.startsWith('.') || name.includes('%') || !TARGET.test(name)) skipped++;
      else if (!targets.includes(name)) targets.push(name);
    }
  }
  return { targets, skipped };
}
