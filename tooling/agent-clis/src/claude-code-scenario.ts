// The session (scenario.ts) through the real Claude Code: `harness init --client claude-code` writes
// the project's `.mcp.json`, then `claude -p` runs in the project against a fake Messages API model.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeEnv, claudeToolName, runClaude } from './claude-code';
import type { Exec } from './exec';
import { MESSAGES_API, type MessagesBody, type MessagesHandedResult } from './fake-anthropic';
import type { PlanStep } from './fake-server';
import { type HarnessBins, instanceIn, runSession, type SessionResult, scenarioPlan } from './scenario';

/** The fake model's plan for Claude Code: the session's steps with Claude Code's tool names. */
export const CLAUDE_CODE_PLAN: readonly PlanStep[] = scenarioPlan(claudeToolName);

/** The programs a Claude Code session runs. */
export type ClaudeCodeBins = HarnessBins & { claude: string };

/** What a Claude Code session left: every output, request and record a test checks. */
export type ClaudeCodeSession = SessionResult<MessagesBody, MessagesHandedResult> & {
  /** What `claude -p` printed. */
  claude: Exec;
};

/** The instance directory the `.mcp.json` entry `harness init` wrote serves. */
function instanceOf(project: string, home: string, server: string): string {
  const servers = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers;
  const entry = servers[server] as { args: string[] } | undefined;
  return instanceIn(entry?.args ?? [], { project, home });
}

/** Runs the whole session through Claude Code in `root` (a fresh, empty temp directory). */
export function runClaudeCodeScenario(bins: ClaudeCodeBins, root: string): Promise<ClaudeCodeSession> {
  return runSession(bins, root, {
    initClient: 'claude-code',
    wire: MESSAGES_API,
    toolName: claudeToolName,
    plan: CLAUDE_CODE_PLAN,
    readSetup: async ({ project, home, server }) => ({
      setup: {},
      instance: instanceOf(project, home, server),
    }),
    run: async ({ project, home, server, prompt, modelUrl }) => {
      const env = claudeEnv({ home, baseUrl: modelUrl });
      return { claude: await runClaude({ bin: bins.claude, cwd: project, env, prompt, server }) };
    },
    personApproves: true,
  });
}
