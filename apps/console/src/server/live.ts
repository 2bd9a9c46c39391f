// `GET /api/events`: the live feed as server-sent events, one `event: <topic>` per change. The
// stream belongs to one console session: when that session ends (idle, lifetime, logout) the feed
// sends `session-ended` with the reason and closes.
import { streamSSE } from 'hono/streaming';
import { SESSION_ENDED_EVENT } from '../wire';
import type { RouteModule } from './context';
import { passkeySignIn, sessionRefusal } from './security';

/**
 * Sent as a comment this often so proxies and the browser keep the stream open; the session is
 * checked at each, so a feed whose session expired with nothing to send closes within this time.
 */
const KEEPALIVE_MS = 15_000;

export const liveRoutes: RouteModule = (api, ctx) => {
  api.get('/events', (c) => {
    // The security middleware let the request in, so it has a session.
    const sessionId = c.get('session')?.id;
    return streamSSE(c, async (stream) => {
      const queue: { topic: string; value: string }[] = [];
      let wake: (() => void) | undefined;
      const stop = ctx.watch.subscribe((event) => {
        queue.push(event);
        wake?.();
      });
      // A logout (or an expiry another request found) wakes the feed at once.
      const stopEnd = sessionId === undefined ? () => {} : ctx.sessions.onEnd(sessionId, () => wake?.());
      stream.onAbort(() => {
        stop();
        wake?.();
      });
      await stream.writeSSE({ event: 'hello', data: '{}' });
      while (!stream.aborted) {
        // Checked before anything is sent: an expired session is told nothing more but why.
        const checked = ctx.sessions.check(sessionId);
        if (!checked.ok) {
          const { code, message } = sessionRefusal(ctx.sessions, checked.reason, passkeySignIn(ctx));
          const data = JSON.stringify({ code, message, reason: checked.reason });
          await stream.writeSSE({ event: SESSION_ENDED_EVENT, data });
          break;
        }
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
      stopEnd();
    });
  });
};
