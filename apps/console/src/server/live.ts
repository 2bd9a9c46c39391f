// `GET /api/events`: the live feed as server-sent events, one `event: <topic>` per change.
import { streamSSE } from 'hono/streaming';
import type { RouteModule } from './context';

/** Sent as a comment this often so proxies and the browser keep the stream open. */
const KEEPALIVE_MS = 15_000;

export const liveRoutes: RouteModule = (api, ctx) => {
  api.get('/events', (c) =>
    streamSSE(c, async (stream) => {
      const queue: { topic: string; value: string }[] = [];
      let wake: (() => void) | undefined;
      const stop = ctx.watch.subscribe((event) => {
        queue.push(event);
        wake?.();
      });
      stream.onAbort(() => {
        stop();
        wake?.();
      });
      await stream.writeSSE({ event: 'hello', data: '{}' });
      while (!stream.aborted) {
        const event = queue.shift();
        if (event !== undefined) {
          await stream.writeSSE({ event: event.topic, data: JSON.stringify({ value: event.value }) });
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, KEEPALIVE_MS).unref();
        });
        wake = undefined;
        if (queue.length === 0 && !stream.aborted) await stream.write(': keepalive\n\n');
      }
      stop();
    }),
  );
};
