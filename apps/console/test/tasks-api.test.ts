// `POST /api/task` end to end: a real console on a real instance (its broker, store and tools), the
// `openai` client reaching a FAKE OpenAI-compatible model server on loopback that plays a scripted
// model. Seed 001, "Interactive and console delivery".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import { type ApiClient, apiClient } from './helpers/api';
import {
  contextOf,
  type FakeModelServer,
  type FakeScript,
  startFakeModelServer,
  toolResults,
} from './helpers/fake-model';
import { makeInstance, type TestInstance } from './helpers/instance';

const MODEL_ENV = ['HARNESS_MODEL_PROVIDER', 'HARNESS_MODEL', 'HARNESS_MODEL_BASE_URL', 'HARNESS_TASK_TOOLS'];

function withEnv(values: Record<string, string>): () => void {
  const saved = Object.fromEntries(MODEL_ENV.map((k) => [k, process.env[k]]));
  for (const k of MODEL_ENV) delete process.env[k];
  Object.assign(process.env, values);
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** The loom id the context message names, '' when none. */
const originIn = (request: Parameters<FakeScript>[0]) =>
  /started it from the loom (\S+) \(/.exec(contextOf(request))?.[1] ?? '';

/** A FAKE model turn: one compose (into the origin loom when `intoOrigin`), then a closing sentence. */
function composeScript(requestId: string, options: { intoOrigin: boolean; say?: string }): FakeScript {
  return (request, step) => {
    if (step === 0) {
      const origin = originIn(request);
      return {
        toolCalls: [
          {
            id: `call-${requestId}`,
            name: 'loom_compose',
            arguments: {
              request_id: requestId,
              ...(options.intoOrigin && origin !== '' ? { loom_id: origin } : {}),
              components: [{ ref: 'url:https://example.com/notes', title: 'Notes' }],
            },
          },
        ],
      };
    }
    return { content: options.say ?? 'Composed.' };
  };
}

describe('POST /api/task with a model', () => {
  let t: TestInstance;
  let fake: FakeModelServer;
  let running: RunningConsole;
  let api: ApiClient;
  let restore: () => void;
  let firstLoom = '';

  beforeAll(async () => {
    t = await makeInstance();
    fake = await startFakeModelServer(() => ({ content: 'unused' }));
    restore = withEnv({
      HARNESS_MODEL_PROVIDER: 'openai-compatible',
      HARNESS_MODEL: 'fake-scripted-model',
      HARNESS_MODEL_BASE_URL: fake.baseUrl,
    });
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    api = await apiClient(running);
  });
  afterAll(async () => {
    await running?.close();
    await fake?.close();
    restore?.();
    t?.cleanup();
  });

  it('accepts a task without loomId: a new loom is composed, originLoomId is null, looms carries its receipt [LA-118]', async () => {
    fake.script(composeScript('first-collection', { intoOrigin: true }));
    const r = await api.post('/task', { prompt: 'Start a collection of my notes.' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'completed', originLoomId: null, text: 'Composed.', pieces: [] });
    const looms = r.body.looms as { receipt: { loom_id: string; created: boolean } }[];
    expect(looms).toHaveLength(1);
    expect(looms[0]?.receipt.created).toBe(true);
    firstLoom = looms[0]?.receipt.loom_id ?? '';
    expect(contextOf(fake.requests.at(-2) as never)).toContain('no origin loom');
  });

  it('refuses an invalid loomId before the turn starts: nothing recorded, the model never asked [LA-119]', async () => {
    const before = fake.requests.length;
    const sessions = ((await api.get('/task/sessions')).body.sessions as unknown[]).length;
    const malformed = await api.post('/task', { prompt: 'x', loomId: '-rm -rf' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: { code: 'invalid_loom_id' } });
    const missing = await api.post('/task', { prompt: 'x', loomId: 'loom-that-does-not-exist' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      error: {
        code: 'invalid_loom_id',
        message: expect.stringContaining('no loom loom-that-does-not-exist'),
      },
    });
    expect(fake.requests.length).toBe(before);
    expect(((await api.get('/task/sessions')).body.sessions as unknown[]).length).toBe(sessions);
  });

  it('composes into the loomId it was given, returns it as originLoomId and the receipt in looms [LA-123] [LA-128] [LA-129] [LA-130]', async () => {
    fake.script(composeScript('add-to-origin', { intoOrigin: true }));
    const r = await api.post('/task', { prompt: 'Add my notes page to this loom.', loomId: firstLoom });
    expect(r.status).toBe(200);
    expect(r.body.originLoomId).toBe(firstLoom);
    expect(r.body.looms).toEqual([
      {
        receipt: expect.objectContaining({
          loom_id: firstLoom,
          request_id: 'add-to-origin',
          version: 2,
          created: false,
        }),
        replayed: false,
        current_version: 2,
      },
    ]);
    const loom = await api.get(`/looms/${firstLoom}`);
    expect((loom.body.loom as { version: number }).version).toBe(2);
  });

  it('persists the loomId as input.loomId [LA-120]', async () => {
    fake.script(() => ({ content: 'Nothing to do.' }));
    const r = await api.post('/task', { prompt: 'Look only.', loomId: firstLoom });
    const session = await api.get(`/task/sessions/${r.body.sessionId}`);
    const turns = session.body.turns as { input: unknown; originLoomId: string; status: string }[];
    expect(turns).toEqual([
      expect.objectContaining({
        input: { prompt: 'Look only.', loomId: firstLoom },
        originLoomId: firstLoom,
        status: 'completed',
      }),
    ]);
  });

  it('delivers the loomId to the turn’s host configuration: loom_authoring_context reads it as the bound target [LA-121]', async () => {
    fake.script((_request, step) =>
      step === 0
        ? { toolCalls: [{ id: 'ctx-1', name: 'loom_authoring_context', arguments: {} }] }
        : { content: 'Read the context.' },
    );
    await api.post('/task', { prompt: 'What is in this loom?', loomId: firstLoom });
    const answer = toolResults(fake.requests.at(-1) as never).get('ctx-1') ?? '';
    expect(answer).toContain('"target"');
    expect(answer).toContain(`"loom_id":"${firstLoom}"`);
  });

  it('delivers the loomId in the turn’s context message [LA-122]', async () => {
    fake.script(() => ({ content: 'ok' }));
    await api.post('/task', { prompt: 'Anything.', loomId: firstLoom });
    expect(contextOf(fake.requests.at(-1) as never)).toContain(`started it from the loom ${firstLoom}`);
  });

  it('a later turn does not replace an earlier turn’s origin [LA-124]', async () => {
    fake.script(() => ({ content: 'ok' }));
    const first = await api.post('/task', { prompt: 'One.', loomId: firstLoom });
    const sessionId = first.body.sessionId as string;
    const second = await api.post('/task', { prompt: 'Two, with no loom.', sessionId });
    expect(second.body.originLoomId).toBeNull();
    const turns = (await api.get(`/task/sessions/${sessionId}`)).body.turns as {
      originLoomId: string | null;
    }[];
    expect(turns.map((x) => x.originLoomId)).toEqual([firstLoom, null]);
  });

  it('the origin is context only: an explicit request for a separate collection creates one [LA-126]', async () => {
    fake.script(composeScript('separate-collection', { intoOrigin: false }));
    const r = await api.post('/task', { prompt: 'Make a separate collection for this.', loomId: firstLoom });
    expect(r.body.originLoomId).toBe(firstLoom);
    const looms = r.body.looms as { receipt: { loom_id: string; created: boolean } }[];
    expect(looms).toHaveLength(1);
    expect(looms[0]?.receipt.created).toBe(true);
    expect(looms[0]?.receipt.loom_id).not.toBe(firstLoom);
  });

  it('an identical retry in a turn is reported as a replay; the next turn’s prose reports nothing [LA-136] [LA-131] [LA-134]', async () => {
    fake.script(composeScript('add-to-origin', { intoOrigin: true, say: `Done: I made loom ${firstLoom}.` }));
    const replay = await api.post('/task', { prompt: 'Add my notes page again.', loomId: firstLoom });
    expect(replay.body.looms).toEqual([
      expect.objectContaining({ replayed: true, receipt: expect.objectContaining({ version: 2 }) }),
    ]);
    fake.script(() => ({ content: `Earlier I composed ${firstLoom}: {"kind":"loom-authored"}` }));
    const later = await api.post('/task', { prompt: 'What did you do?', sessionId: replay.body.sessionId });
    expect(later.body.looms).toEqual([]);
  });

  it('a returned loom is opened by its receipt id through the console’s Loom host, not from the text [LA-137]', async () => {
    fake.script(
      composeScript('open-by-receipt', { intoOrigin: false, say: 'I made loom-made-up-by-the-model.' }),
    );
    const r = await api.post('/task', { prompt: 'Make a collection.' });
    const id = (r.body.looms as { receipt: { loom_id: string } }[])[0]?.receipt.loom_id ?? '';
    expect((await api.get(`/looms/${id}`)).status).toBe(200);
    expect((await api.get('/looms/loom-made-up-by-the-model')).status).toBe(404);
  });

  it('a model failure is a clear error that echoes nothing the model server sent', async () => {
    fake.script(() => ({ httpStatus: 401 }));
    const r = await api.post('/task', { prompt: 'Anything.' });
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({
      error: {
        code: 'model_failed',
        message: 'the model server answered HTTP 401; check the model name and key',
      },
    });
    expect(JSON.stringify(r.body)).not.toContain('sk-fake');
  });
});

describe('tool policy of durable sessions across console restarts', () => {
  let t: TestInstance;
  let fake: FakeModelServer;
  let restore: () => void;
  const offered = () => (fake.requests.at(-1)?.tools ?? []).map((x) => x.function.name).sort();

  beforeAll(async () => {
    t = await makeInstance();
    fake = await startFakeModelServer(() => ({ content: 'ok' }));
    restore = withEnv({});
  });
  afterAll(async () => {
    await fake?.close();
    restore?.();
    t?.cleanup();
  });

  async function console(tools?: string): Promise<{ running: RunningConsole; api: ApiClient }> {
    for (const k of MODEL_ENV) delete process.env[k];
    Object.assign(process.env, {
      HARNESS_MODEL_PROVIDER: 'openai-compatible',
      HARNESS_MODEL: 'fake-scripted-model',
      HARNESS_MODEL_BASE_URL: fake.baseUrl,
      ...(tools === undefined ? {} : { HARNESS_TASK_TOOLS: tools }),
    });
    const running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    return { running, api: await apiClient(running) };
  }

  it('a session keeps its recorded tools; a restart with more tools does not widen it; a refresh or a new session does [LA-150] [LA-151] [LA-152]', async () => {
    const narrow = await console('list_commands,run_read_command');
    const first = await narrow.api.post('/task', { prompt: 'Read only.' });
    const sessionId = first.body.sessionId as string;
    expect(offered()).toEqual(['list_commands', 'run_read_command']);
    await narrow.running.close();

    const wide = await console();
    try {
      await wide.api.post('/task', { prompt: 'Again.', sessionId });
      expect(offered()).toEqual(['list_commands', 'run_read_command']);
      const fresh = await wide.api.post('/task', { prompt: 'New session.' });
      expect(fresh.body.sessionId).not.toBe(sessionId);
      expect(offered()).toHaveLength(6);
      const refreshed = await wide.api.post(`/task/sessions/${sessionId}/policy`, {});
      expect((refreshed.body.session as { policy: { tools: string[] } }).policy.tools).toHaveLength(6);
      await wide.api.post('/task', { prompt: 'After the refresh.', sessionId });
      expect(offered()).toHaveLength(6);
    } finally {
      await wide.running.close();
    }
  });
});

describe('POST /api/task without a model', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let restore: () => void;
  beforeAll(async () => {
    t = await makeInstance();
    restore = withEnv({});
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
  });
  afterAll(async () => {
    await running?.close();
    restore?.();
    t?.cleanup();
  });

  it('answers a clear error saying how to configure a model, and everything else works', async () => {
    const api = await apiClient(running);
    const status = await api.get('/task/model');
    expect(status.body.model).toMatchObject({ configured: false, problem: 'not_configured' });
    const r = await api.post('/task', { prompt: 'Anything.' });
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({
      error: {
        code: 'model_not_configured',
        message: 'no model is configured, so tasks cannot run; everything else in the console works',
        howTo: expect.stringContaining('HARNESS_MODEL_PROVIDER=openai-compatible'),
      },
    });
    expect((await api.get('/approvals')).status).toBe(200);
    expect((await api.get('/audit')).status).toBe(200);
  });
});
