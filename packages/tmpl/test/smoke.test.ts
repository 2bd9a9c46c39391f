import { describe, expect, it } from 'vitest';
import * as tmpl from '../src/index';

describe('package', () => {
  it('loads', () => {
    expect(typeof tmpl).toBe('object');
  });
});
