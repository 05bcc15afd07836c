import { Argument, Option } from 'commander';
import { MemError } from '../errors.js';

/**
 * Options and arguments whose values a shell can complete. Declared where the command is, so the completion
 * scripts (src/cli/completion.ts) derive them from the commander program like everything else:
 *
 * - a fixed set: commander's `.choices()` (shown in --help, listed by the scripts), checked with the CLI's
 *   own error (`error[VALIDATION_ERROR]: --type must be one of ...`, exit 2, a JSON body with --json)
 *   rather than commander's plain `error: option ... is invalid`;
 * - values only the daemon knows (key ids, memory ids, entity names...): a kind that `mem __complete <kind>`
 *   answers, which the scripts call at that position.
 */
export const DAEMON_VALUE_KINDS = ['keys', 'users', 'watches', 'jobs', 'memories', 'entities'] as const;
export type DaemonValueKind = (typeof DAEMON_VALUE_KINDS)[number];

const daemonKinds = new WeakMap<Option | Argument, DaemonValueKind>();

/** What `mem __complete` should be asked for at this option or argument, if anything. */
export function daemonValueKind(target: Option | Argument): DaemonValueKind | undefined {
  return daemonKinds.get(target);
}

function checked(choices: readonly string[], label: string) {
  return (value: string) => {
    if (!choices.includes(value)) {
      throw new MemError('VALIDATION_ERROR', `${label} must be one of ${choices.join(', ')} (got "${value}").`);
    }
    return value;
  };
}

/** An option whose value is one of `choices` (completed by the shell, validated on parse). */
export function choiceOption(flags: string, description: string, choices: readonly string[], defaultValue?: string): Option {
  const option = new Option(flags, description).choices(choices);
  option.argParser(checked(choices, option.long ?? flags));
  return defaultValue === undefined ? option : option.default(defaultValue);
}

/** A positional argument whose value is one of `choices`. */
export function choiceArgument(name: string, description: string, choices: readonly string[]): Argument {
  const argument = new Argument(name, description).choices(choices);
  return argument.argParser(checked(choices, argument.name()));
}

/** An option whose values the daemon knows: the shell asks `mem __complete <kind>` for them. */
export function daemonOption(flags: string, description: string, kind: DaemonValueKind): Option {
  const option = new Option(flags, description);
  daemonKinds.set(option, kind);
  return option;
}

/** A positional argument whose values the daemon knows. */
export function daemonArgument(name: string, description: string, kind: DaemonValueKind): Argument {
  const argument = new Argument(name, description);
  daemonKinds.set(argument, kind);
  return argument;
}
