// The tools a task turn may call: the host command tools and the Loom authoring tools, reached
// through a broker the console starts on its instance for the turn (on a private socket, closed when
// the turn ends), serving what the instance serves. With `--loom-authoring-config` the Loom tools go
// to that host instead.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AuthoringConfig,
  createHostCommandTools,
  createLoomAuthoringTools,
  type HarnessTool,
  type PatternResolver,
  readAuthoringConfig,
} from '@harness/commands';
import { readInstance, startBroker } from '@harness/host';

/** The tools of one turn, and how to release what serves them. */
export interface TurnTools {
  tools: HarnessTool[];
  close(): Promise<void>;
}

/** Opens the tools of one turn. */
export type OpenTurnTools = () => Promise<TurnTools>;

/** The run id the console's task broker records its calls under. */
export const TASK_BROKER_RUN = 'console-tasks';

/**
 * The default tools: a broker on the instance, the authoring configuration when one is given, and
 * Pattern tokens resolved by `resolver` (one for the console's life: the handles it holds outlive a
 * turn, seed 001 LA-84).
 */
export function instanceTools(
  instanceDir: string,
  authoringConfigPath: string | undefined,
  resolver: PatternResolver | undefined,
): OpenTurnTools {
  return async () => {
    let authoring: AuthoringConfig | undefined;
    if (authoringConfigPath !== undefined) {
      const read = readAuthoringConfig(authoringConfigPath);
      if (!read.ok)
        throw new Error(`${authoringConfigPath}: ${read.issues.map((i) => i.message).join('; ')}`);
      authoring = read.value;
    }
    const instance = readInstance(instanceDir);
    const serves = instance.serves ?? { agent: 'demo' };
    const scope = 'agent' in serves ? { run: TASK_BROKER_RUN, agent: serves.agent } : serves.scopeFile;
    // A short private directory: a socket path is limited to about 100 bytes.
    const dir = mkdtempSync(join(tmpdir(), 'harness-task-'));
    const socketPath = join(dir, 'broker.sock');
    let broker: Awaited<ReturnType<typeof startBroker>>;
    try {
      broker = await startBroker({ instanceDir, socketPath, scope });
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    // The socket client never runs the CLI; the configuration still names one.
    const transport = { kind: 'broker' as const, socketPath: socketPath, client: 'socket' as const };
    const config = { cliPath: process.execPath, transport };
    return {
      tools: [
        ...createHostCommandTools({ config }),
        ...createLoomAuthoringTools({ config: authoring ?? config, ...(resolver ? { resolver } : {}) }),
      ],
      async close() {
        await broker.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}
