import { Box, Text } from 'ink';
import { Component, useState, type ReactNode } from 'react';
import { useKeys } from '../hooks/use-keys.js';
import { theme } from '../theme.js';

/**
 * An error boundary around each view: a rendering bug shows a message, and `r` draws the view afresh,
 * instead of Ink tearing the whole screen down. The keys are handled here, mounted from the start, since
 * a component mounted with the message would miss a key pressed before its listener is subscribed.
 */
export function Guard({ active, children }: { active: boolean; children: ReactNode }) {
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const [attempt, setAttempt] = useState(0);
  useKeys((input) => {
    if (failure && input === 'r') {
      setFailure(undefined);
      setAttempt((count) => count + 1);
    }
  }, active);
  return (
    <>
      {failure ? <Crashed error={failure} /> : null}
      <Boundary key={attempt} onError={setFailure}>
        {children}
      </Boundary>
    </>
  );
}

class Boundary extends Component<{ onError: (error: Error) => void; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: Error) {
    this.props.onError(error);
  }

  override render() {
    return this.state.failed ? null : this.props.children;
  }
}

function Crashed({ error }: { error: Error }) {
  return (
    <Box flexDirection="column">
      <Text color={theme.error} bold>
        This view failed to draw.
      </Text>
      <Text wrap="wrap">{error.message}</Text>
      <Text>
        {'Press '}
        <Text bold color={theme.accent}>
          r
        </Text>
        {' to redraw it.'}
      </Text>
    </Box>
  );
}
