// The task model's configuration from the environment, and the caller-side membership check of a
// piece's loomComponents (seed 001, LA-147, LA-148).
import { describe, expect, it } from 'vitest';
import { modelStatus, readModelConfig } from '../src/server/tasks/model-config';
import { type Manifest, pieceMembership } from '../src/web/views/tasks-membership';

describe('model configuration', () => {
  it('is absent when nothing is set, and says how to configure one', () => {
    const read = readModelConfig({ OPENAI_API_KEY: 'sk-ambient' });
    expect(read.ok).toBe(false);
    expect(modelStatus(read)).toMatchObject({ configured: false, problem: 'not_configured' });
  });

  it('reads an OpenAI-compatible server (a key is optional), OpenAI and Anthropic', () => {
    expect(
      readModelConfig({
        HARNESS_MODEL_PROVIDER: 'openai-compatible',
        HARNESS_MODEL: 'llama3.1',
        HARNESS_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1',
      }),
    ).toEqual({
      ok: true,
      config: {
        provider: 'openai-compatible',
        model: 'llama3.1',
        baseUrl: 'http://127.0.0.1:11434/v1',
        apiKey: undefined,
      },
    });
    const openai = readModelConfig({
      HARNESS_MODEL_PROVIDER: 'openai',
      HARNESS_MODEL: 'gpt-4.1',
      OPENAI_API_KEY: 'k1',
    });
    expect(openai.ok && openai.config.apiKey).toBe('k1');
    const anthropic = readModelConfig({
      HARNESS_MODEL_PROVIDER: 'anthropic',
      HARNESS_MODEL: 'claude-sonnet-4-5',
      ANTHROPIC_API_KEY: 'k2',
      HARNESS_MODEL_API_KEY: 'k3',
    });
    expect(anthropic.ok && anthropic.config.apiKey).toBe('k3');
  });

  it('names what is missing or wrong, and never shows the key', () => {
    const cases: [Record<string, string>, string][] = [
      [{ HARNESS_MODEL: 'x' }, 'HARNESS_MODEL_PROVIDER must be one of openai-compatible, openai, anthropic'],
      [{ HARNESS_MODEL_PROVIDER: 'gemini', HARNESS_MODEL: 'x' }, "found 'gemini'"],
      [{ HARNESS_MODEL_PROVIDER: 'openai' }, 'HARNESS_MODEL must name the model to use'],
      [
        { HARNESS_MODEL_PROVIDER: 'openai-compatible', HARNESS_MODEL: 'x' },
        'HARNESS_MODEL_BASE_URL must give',
      ],
      [
        { HARNESS_MODEL_PROVIDER: 'anthropic', HARNESS_MODEL: 'x' },
        'set ANTHROPIC_API_KEY or HARNESS_MODEL_API_KEY',
      ],
    ];
    for (const [env, message] of cases) {
      const status = modelStatus(readModelConfig(env));
      expect(status).toMatchObject({
        configured: false,
        problem: 'invalid',
        message: expect.stringContaining(message),
      });
    }
    const ok = modelStatus(
      readModelConfig({ HARNESS_MODEL_PROVIDER: 'openai', HARNESS_MODEL: 'm', OPENAI_API_KEY: 'sk-secret' }),
    );
    expect(JSON.stringify(ok)).not.toContain('sk-secret');
  });
});

describe('membership of a named Pattern, on the caller side', () => {
  const manifest: Manifest = {
    loom_id: 'loom-a',
    components: [{ id: 'cmp-1', ref: 'pattern:space/inst-1' }],
  };
  const reads: string[] = [];
  const read = async (id: string) => {
    reads.push(id);
    return id === 'loom-a' ? manifest : undefined;
  };

  it('checks both ids against a freshly read manifest before treating the Pattern as placed [LA-147]', async () => {
    reads.length = 0;
    expect(
      await pieceMembership(
        { slug: 'w', loomComponents: [{ loomId: 'loom-a', componentId: 'cmp-1' }] },
        read,
      ),
    ).toEqual({
      member: true,
      by: 'loomComponents',
      loomId: 'loom-a',
      componentId: 'cmp-1',
    });
    expect(reads).toEqual(['loom-a']);
    // A component the loom no longer has, or a loom that is gone, proves nothing: place it as usual.
    expect(
      await pieceMembership(
        { slug: 'w', loomComponents: [{ loomId: 'loom-a', componentId: 'cmp-gone' }] },
        read,
      ),
    ).toEqual({
      member: false,
    });
    expect(
      await pieceMembership(
        { slug: 'w', loomComponents: [{ loomId: 'loom-b', componentId: 'cmp-1' }] },
        read,
      ),
    ).toEqual({
      member: false,
    });
  });

  it('a legacy exact-reference comparison proves membership on its own; no correlation alone proves nothing [LA-148]', async () => {
    expect(
      await pieceMembership({ slug: 'w' }, read, { loomId: 'loom-a', ref: 'pattern:space/inst-1' }),
    ).toMatchObject({
      member: true,
      by: 'legacy-reference',
      componentId: 'cmp-1',
    });
    expect(
      await pieceMembership({ slug: 'w' }, read, { loomId: 'loom-a', ref: 'pattern:space/inst-10' }),
    ).toEqual({
      member: false,
    });
    expect(await pieceMembership({ slug: 'w' }, read)).toEqual({ member: false });
  });
});
