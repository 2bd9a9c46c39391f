// @harness/packs/internal: what other packages of this repository share with packs but an embedder
// does not need: the YAML reader with positions that every config loader uses. Unstable: any release
// may change or remove a name here without notice (docs/packs.md, "Internals"). Import it only from a
// package of this repository.

export type { Locator, Position, YamlSyntaxError } from './positions';
export { locator, parseYamlConfig } from './positions';
