import { Text } from 'ink';
import { useEffect, useState } from 'react';
import { theme } from '../theme.js';

/** Seconds of waiting after which the daemon is called slow. */
const SLOW_AFTER_S = 5;

/**
 * A request in flight, with the seconds it has waited, so a slow daemon shows as slow rather than as a
 * frozen screen. The rest of the screen keeps answering keys meanwhile.
 */
export function Pending({ label, since, slowHint = 'press r to ask again' }: { label: string; since: number; slowHint?: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.max(0, Math.floor((now - since) / 1000));
  return (
    <Text color={theme.pending} wrap="truncate-end">
      {`${label}…`}
      {seconds >= 1 ? ` ${seconds}s` : ''}
      {seconds >= SLOW_AFTER_S ? ` (the daemon is slow; keep waiting, or ${slowHint})` : ''}
    </Text>
  );
}
