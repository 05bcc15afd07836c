import { Box, Text } from 'ink';
import type { ErrorInfo } from '../error-info.js';
import { theme } from '../theme.js';

/** A failed request: what failed, the API's code and message, the hint, and how to try again. */
export function ErrorBox({ what, error, retryKey = 'r' }: { what: string; error: ErrorInfo; retryKey?: string }) {
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text color={theme.error} bold wrap="truncate-end">
        {`✗ ${what} failed: ${error.code}`}
      </Text>
      <Text wrap="wrap">{error.message}</Text>
      {error.hint ? (
        <Text dimColor wrap="wrap">
          {`hint: ${error.hint}`}
        </Text>
      ) : null}
      <Text>
        {'Press '}
        <Text bold color={theme.accent}>
          {retryKey}
        </Text>
        {' to retry.'}
      </Text>
    </Box>
  );
}
