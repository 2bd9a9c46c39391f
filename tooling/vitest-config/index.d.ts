import type { ViteUserConfig } from 'vitest/config';

/** The shared vitest preset; `overrides.test` is merged into the preset's `test` block. */
export declare function harnessVitestConfig(overrides?: ViteUserConfig): ViteUserConfig;
