import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { Pending } from '../../src/tui/components/Pending.js';

afterEach(cleanup);

describe('Pending', () => {
  it('shows the label at once, then the seconds waited, and calls a long wait slow', () => {
    expect(render(<Pending label="Loading entities" since={Date.now()} />).lastFrame()).toBe('Loading entities…');
    expect(render(<Pending label="Loading entities" since={Date.now() - 2500} />).lastFrame()).toBe('Loading entities… 2s');
    expect(render(<Pending label="Thinking" since={Date.now() - 7000} slowHint="press Esc to stop" />).lastFrame()).toBe(
      'Thinking… 7s (the daemon is slow; keep waiting, or press Esc to stop)',
    );
  });
});
