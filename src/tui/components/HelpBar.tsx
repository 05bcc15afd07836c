import { Box, Text } from 'ink';
import { theme } from '../theme.js';

/** A key and what it does, as the help bar lists them. */
export type KeyHelp = readonly [key: string, action: string];

/** The bottom line: the keys that work right now, cut at the terminal's width. */
export function HelpBar({ keys }: { keys: readonly KeyHelp[] }) {
  return (
    <Box flexShrink={0}>
      <Text wrap="truncate-end">
        {keys.map(([key, action], index) => (
          <Text key={index}>
            <Text bold color={theme.accent}>
              {key}
            </Text>
            <Text dimColor>{` ${action}${index < keys.length - 1 ? '  ' : ''}`}</Text>
          </Text>
        ))}
      </Text>
    </Box>
  );
}
