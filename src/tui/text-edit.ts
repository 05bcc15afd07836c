import type { Key } from 'ink';

/**
 * A one-line text field's answer to a key press: the new value, or undefined when the key is not an edit
 * (arrows, Enter, Tab, Esc... are left to the view). Backspace arrives as `delete` from most terminals
 * (DEL, 0x7f), so both erase the last character; Ctrl-U clears, Ctrl-W erases the last word.
 */
export function editText(value: string, input: string, key: Key): string | undefined {
  if (key.backspace || key.delete) return Array.from(value).slice(0, -1).join('');
  if (key.ctrl && input === 'u') return '';
  if (key.ctrl && input === 'w') return value.replace(/\S*\s*$/, '');
  if (key.ctrl || key.meta || key.tab || key.return || key.escape || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) {
    return undefined;
  }
  if (key.pageUp || key.pageDown || key.home || key.end) return undefined;
  // A paste arrives as one input; line breaks become spaces, other control characters are dropped.
  const printable = input.replace(/\r\n|[\r\n]/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
  return printable ? value + printable : undefined;
}

/**
 * A chunk that ends in a line break after some text (a paste that ends in Enter, a terminal driven by a
 * script: `tmux send-keys "Where did I meet Sarah?" Enter`) arrives as one input with no `return` key, so
 * editText alone would type the Enter as a space. This returns the field's value with the chunk typed (its
 * inner line breaks as spaces) when the chunk should also submit it; undefined otherwise (a lone Enter is
 * `key.return`, left to the view; a chunk with breaks only inside is a multi-line paste, only typed).
 */
export function typedAndSubmitted(value: string, input: string, key: Key): string | undefined {
  if (key.return || key.ctrl || key.meta || input.length < 2 || !/[\r\n]$/.test(input)) return undefined;
  return editText(value, input.replace(/[\r\n]+$/, ''), { ...key, return: false }) ?? value;
}
