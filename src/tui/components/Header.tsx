import { Box, Text } from 'ink';
import { VIEWS, type ViewName } from '../view-names.js';
import { theme } from '../theme.js';

/** The top line: the views (the current one in brackets, so it reads without colour too) and the daemon address. */
export function Header({ view, address, width }: { view: ViewName; address?: string | undefined; width: number }) {
  return (
    <Box width={width} justifyContent="space-between">
      <Text wrap="truncate">
        <Text bold color={theme.accent}>
          mem
        </Text>
        {VIEWS.map((entry) =>
          entry.name === view ? (
            <Text key={entry.name} bold inverse>
              {` [${entry.title}] `}
            </Text>
          ) : (
            <Text key={entry.name} dimColor>
              {`  ${entry.title}  `}
            </Text>
          ),
        )}
      </Text>
      {address ? (
        <Box flexShrink={1} marginLeft={1}>
          <Text dimColor wrap="truncate-start">
            {address}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}
