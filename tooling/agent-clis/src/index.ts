// The real agent CLIs, driven in tests against fake model servers: install, run, measure. What the
// tests and benches of this package use; every name is defined once, in the file named beside it.

export { CLAUDE_CODE, claudeToolName } from './claude-code';
export type { ClaudeCodeBins, ClaudeCodeSession } from './claude-code-scenario';
export { CLAUDE_CODE_PLAN, runClaudeCodeScenario } from './claude-code-scenario';
export { CODEX, codexToolName } from './codex';
export type { CodexBins, CodexSession } from './codex-scenario';
export { CODEX_PLAN, runCodexElicitation, runCodexScenario } from './codex-scenario';
export type { CodexTokenRow } from './codex-tokens';
export { codexOutputParts, codexTokenRows } from './codex-tokens';
export type { Exec } from './exec';
export { runNode } from './exec';
export type { ContentBlock, MessagesBody, MessagesHandedResult } from './fake-anthropic';
export { MESSAGES_API, toolResultsOf } from './fake-anthropic';
export type { ResponseItem, ResponsesBody, ResponsesHandedResult } from './fake-openai';
export { RESPONSES_API } from './fake-openai';
export type { FakeModel, FakeModelOptions, HandedResult, PlanStep, RecordedRequest } from './fake-server';
export { startFakeModel } from './fake-server';
export type { Installed, PinnedPackage } from './install';
export { cacheRoot, installDir, installPinned, MARKER } from './install';
export { PI, PI_SKIP_REASON, piMcpEvidence } from './pi';
export {
  CHANGED_FILE,
  CHANGED_LINES,
  gitIn,
  ORIGINAL_LINES,
  PROJECT_COMMITS,
  STAGED_FILE,
} from './project';
export type { AuditEvent, HarnessBins, SessionResult } from './scenario';
export { COMMIT_MESSAGE, EXECUTED_STEPS, FINAL_TEXT, RESULT_KINDS, repoBins, SERVER, STEP } from './scenario';
export type { TokenRow } from './tokens';
export { BASELINE_TOKENS, formatTokenTable, HandedForm, handedJson, tokenRows } from './tokens';
