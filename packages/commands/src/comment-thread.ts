// Which tools a comment-thread turn keeps: reads its session policy names, and the Loom tools only
// where the owner allowed them there.
import { LOOM_TOOL_NAMES } from './loom-authoring-tools';

/**
 * The tools that survive a comment thread's restriction. Without `allowCommentThreads: true` only
 * read tools the session policy names pass (the ordinary read-only policy); with it, the Loom
 * tools the session policy names pass too. No other write tool (shell, file writes, delegation)
 * ever passes, and nothing here grants direct-command authority.
 */
export function toolsForCommentThread<T extends { name: string; effect: 'read' | 'write' }>(
  tools: readonly T[],
  options: { sessionPolicy: readonly string[]; allowCommentThreads?: boolean | undefined },
): T[] {
  const named = new Set(options.sessionPolicy);
  return tools.filter((t) => {
    if (!named.has(t.name)) return false;
    if (t.effect === 'read') return true;
    return options.allowCommentThreads === true && (LOOM_TOOL_NAMES as readonly string[]).includes(t.name);
  });
}
