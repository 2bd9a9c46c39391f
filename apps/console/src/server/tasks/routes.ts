// Tasks: `POST /api/task` runs one agent turn; the model status, the sessions and their turns; the
// explicit policy refresh that is the only way a session's tools grow.
import { createLocalPatternResolver, readFabricBinding } from '@harness/commands';
import type { Context } from 'hono';
import type { TaskModelAnswer, TaskSessionAnswer, TaskSessionsAnswer } from '../../answers';
import { TaskErrorCode } from '../../api-errors';
import type { ConsoleContext, RouteModule } from '../context';
import { runTask, type TaskEngine } from './engine';
import { createChatModel } from './model';
import { modelStatus, readModelConfig } from './model-config';
import { TaskStore } from './sessions';
import { TASK_ERROR_STATUS, TaskError } from './task-errors';
import { instanceTools } from './tool-host';

/** `HARNESS_TASK_TOOLS`: a comma-separated list of the tools new sessions record (default: all). */
export const TASK_TOOLS_ENV = 'HARNESS_TASK_TOOLS';

function errorAnswer(c: Context, error: TaskError, extra: Record<string, unknown> = {}) {
  return c.json(
    { error: { code: error.code, message: error.message, ...extra } },
    TASK_ERROR_STATUS[error.code],
  );
}

/** Opens the instance's task store for one request. */
function withStore<T>(ctx: ConsoleContext, use: (store: TaskStore) => T): T {
  const store = new TaskStore(ctx.instanceDir);
  try {
    return use(store);
  } finally {
    store.close();
  }
}

/** The tasks routes, configured from `env` (the console's environment). */
export function taskRoutes(env: Record<string, string | undefined>): RouteModule {
  return (api, ctx) => {
    const model = readModelConfig(env);
    const allowTools = env[TASK_TOOLS_ENV]
      ?.split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const fabric = readFabricBinding({}, env);
    // A console that stopped in the middle of a turn left it running: it is not, any more.
    withStore(ctx, (store) => store.markInterrupted());
    const session = fabric.ok ? fabric.value : undefined;
    const resolver = session === undefined ? undefined : createLocalPatternResolver({ session });
    const openTools = instanceTools(ctx.instanceDir, ctx.authoringConfig, resolver);

    api.get('/task/model', (c) => c.json({ model: modelStatus(model) } satisfies TaskModelAnswer));

    api.post('/task', async (c) => {
      if (!model.ok) {
        const { message, howTo, problem } = model.status;
        return errorAnswer(c, new TaskError(TaskErrorCode.model_not_configured, message), {
          problem,
          howTo,
        });
      }
      const body = await c.req.json().catch(() => undefined);
      const store = new TaskStore(ctx.instanceDir);
      try {
        const engine: TaskEngine = {
          store,
          model: await createChatModel(model.config),
          openTools,
          loomExists: async (id) => (await ctx.store.inspect(id)) !== undefined,
          allowTools,
        };
        const result = await runTask(engine, body, c.req.raw.signal);
        ctx.watch.publish({ topic: 'tasks', value: result.turnId });
        return c.json(result);
      } catch (error) {
        if (error instanceof TaskError) return errorAnswer(c, error);
        throw error;
      } finally {
        store.close();
      }
    });

    api.get('/task/sessions', (c) =>
      c.json({ sessions: withStore(ctx, (s) => s.listSessions()) } satisfies TaskSessionsAnswer),
    );

    api.get('/task/sessions/:id', (c) =>
      withStore(ctx, (store) => {
        const session = store.getSession(c.req.param('id'));
        if (session === undefined)
          return errorAnswer(
            c,
            new TaskError(TaskErrorCode.session_not_found, 'no task session has this id'),
          );
        return c.json({ session, turns: store.turns(session.id) } satisfies TaskSessionAnswer);
      }),
    );

    // The explicit refresh: the session's recorded tools become the tools configured now.
    api.post('/task/sessions/:id/policy', async (c) => {
      let tools: string[];
      try {
        const opened = await openTools();
        tools = opened.tools
          .map((t) => t.name)
          .filter((n) => allowTools === undefined || allowTools.includes(n));
        await opened.close();
      } catch (error) {
        return errorAnswer(c, new TaskError(TaskErrorCode.tools_unavailable, (error as Error).message));
      }
      return withStore(ctx, (store) => {
        const session = store.refreshPolicy(c.req.param('id'), tools);
        if (session === undefined)
          return errorAnswer(
            c,
            new TaskError(TaskErrorCode.session_not_found, 'no task session has this id'),
          );
        return c.json({ session });
      });
    });
  };
}

export const tasksRoutes: RouteModule = (api, ctx) => taskRoutes(process.env)(api, ctx);
