// @harness/packs/loader: what a file that embeds command packs composes its load from — a workspace
// file (@harness/workspace) is one. The pack schema and the scalars a file shares with it, the reader
// (YAML with positions, `standard:` entries merged, a zod schema checked), the pack builder and the
// words and issues its messages are made of. An application loads a file with `loadPacks` or
// `@harness/workspace`'s `loadWorkspace`, not with these.
export type { IssuePlace } from './errors';
export { packsIssue } from './errors';
export type { OfferedPacks } from './load/build';
export { buildPackList, offerPacks } from './load/build';
export { PACK_EXAMPLES } from './load/examples';
export { sortIssues } from './load/issues';
export type { BuiltPack } from './load/packs';
export type { LoadWalls } from './load/sandbox';
export { loadWalls, resolveSandbox } from './load/sandbox';
export { within } from './load/sandbox-walls';
export type { ParsedSource, Read } from './load/source';
export { checkSource, readSource } from './load/source';
export { checkPackEnv } from './load/templates';
export type { BuildContext, CheckContext, Path, PositionedIssue, RawPack } from './load/types';
export { listForMessage, unknownCommandMessage } from './lookup';
export {
  approvalWaitMs,
  approvalWaitSchema,
  commandPacksSchema,
  durationSchema,
  labelSchema,
  packSchema,
  sandboxSchema,
  scopeSchema,
  sizeSchema,
  standardEntrySchema,
  tierSchema,
} from './schema';
