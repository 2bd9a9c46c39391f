// The real agent CLIs, driven in tests against a fake model server: install, run, measure.

export type { ClaudeRun } from './claude-code';
export { CLAUDE_CODE, claudeEnv, claudeSettings, claudeToolName, runClaude } from './claude-code';
export type {
  ContentBlock,
  FakeModel,
  FakeModelOptions,
  HandedResult,
  MessagesBody,
  PlanStep,
  RecordedRequest,
} from './fake-anthropic';
export { resultText, startFakeModel, toolResultsOf } from './fake-anthropic';
export type { Installed, PinnedPackage } from './install';
export { cacheRoot, installDir, installPinned, MARKER } from './install';
export {
  CHANGED_FILE,
  CHANGED_LINES,
  gitIn,
  makeProject,
  ORIGINAL_LINES,
  PROJECT_COMMITS,
  STAGED_FILE,
} from './project';
export type { AuditEvent, Exec, ScenarioBins, ScenarioResult } from './scenario';
export {
  approvalIdIn,
  COMMIT_MESSAGE,
  FINAL_TEXT,
  PLAN,
  PROMPT,
  RESULT_KINDS,
  repoBins,
  runScenario,
  SERVER,
  STEP,
} from './scenario';
export type { TokenRow } from './tokens';
export { formatTokenTable, HandedForm, o200k, structuredOf, tokenRows } from './tokens';
