import { Box, Text } from 'ink';
import { theme } from '../theme.js';

/**
 * A one-line text field as drawn: label, value (its end when it is longer than the line) and, when it has
 * the focus, a cursor. Keys are edited by the view that owns it (see text-edit.ts), so one handler per view
 * decides between typing and commands.
 */
export function TextField({ label, value, focused, placeholder }: { label: string; value: string; focused: boolean; placeholder?: string }) {
  return (
    <Box flexShrink={0}>
      <Text bold color={focused ? theme.accent : undefined}>{`${label} `}</Text>
      <Box flexGrow={1} flexShrink={1}>
        {value === '' && !focused && placeholder ? (
          <Text dimColor wrap="truncate-end">
            {placeholder}
          </Text>
        ) : (
          <Text wrap="truncate-start">
            {value}
            {focused ? <Text inverse> </Text> : null}
          </Text>
        )}
      </Box>
    </Box>
  );
}
