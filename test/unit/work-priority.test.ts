import { describe, expect, it } from 'vitest';
import { currentPriority, inBackground } from '../../src/core/scheduling/priority.js';

describe('work priority', () => {
  it('is interactive unless the work runs inside inBackground, through awaits and timers', async () => {
    expect(currentPriority()).toBe('interactive');
    const seen = await inBackground(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      const inner = await Promise.resolve().then(() => currentPriority());
      return [currentPriority(), inner];
    });
    expect(seen).toEqual(['background', 'background']);
    expect(currentPriority()).toBe('interactive');
  });
});
