import type { Argument, Command, Option } from 'commander';
import { daemonValueKind, type DaemonValueKind } from './completion-values.js';

/**
 * Shell completion scripts generated from the commander program itself, so they list exactly the commands
 * and options that exist, and the values of options and arguments declared with a fixed set of choices or
 * a daemon value kind (src/cli/completion-values.ts). Daemon values are asked of `mem __complete` when TAB
 * is pressed. completions/ holds the generated files; a test fails when they drift.
 */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** What a value completes to: one of a fixed set, or what `mem __complete <kind>` prints. */
type Values = { readonly choices: readonly string[] } | { readonly kind: DaemonValueKind };

interface OptionInfo {
  readonly long: string;
  readonly short?: string;
  readonly description: string;
  readonly takesValue: boolean;
  readonly values?: Values;
}

interface ArgumentInfo {
  readonly variadic: boolean;
  readonly description: string;
  readonly values?: Values;
}

interface CommandInfo {
  readonly path: string[];
  /** The name, then the aliases: each one leads to this command. */
  readonly names: string[];
  readonly description: string;
  readonly options: OptionInfo[];
  readonly arguments: ArgumentInfo[];
  readonly subcommands: CommandInfo[];
}

function valuesOf(target: Option | Argument): Values | undefined {
  const kind = daemonValueKind(target);
  if (kind) return { kind };
  return target.argChoices ? { choices: target.argChoices } : undefined;
}

function optionInfo(option: Option): OptionInfo {
  const values = valuesOf(option);
  return {
    long: option.long ?? '',
    ...(option.short ? { short: option.short } : {}),
    description: option.description,
    takesValue: option.required || option.optional,
    ...(values ? { values } : {}),
  };
}

function argumentInfo(argument: Argument): ArgumentInfo {
  const values = valuesOf(argument);
  return { variadic: argument.variadic, description: argument.description, ...(values ? { values } : {}) };
}

function walk(command: Command, path: string[]): CommandInfo {
  return {
    path,
    names: [command.name(), ...command.aliases()],
    description: command.description(),
    options: command.options.filter((option) => option.long && !option.hidden).map(optionInfo),
    arguments: command.registeredArguments.map(argumentInfo),
    // Hidden commands (`mem __complete`) are for the scripts, not for the user to complete.
    subcommands: command
      .createHelp()
      .visibleCommands(command)
      .filter((sub) => sub.name() !== 'help')
      .map((sub) => walk(sub, [...path, sub.name()])),
  };
}

function everyCommand(info: CommandInfo): CommandInfo[] {
  return [info, ...info.subcommands.flatMap(everyCommand)];
}

const quoteSingle = (text: string) => text.replace(/'/g, `'\\''`);
const flagsOf = (option: OptionInfo) => [option.long, ...(option.short ? [option.short] : [])];

/** The header lines every script starts with, after its own first lines. */
const DAEMON_NOTE = [
  'Values only the daemon knows (key, user, watch, job and memory ids, entity names) come from',
  '`mem __complete KIND PREFIX`: they need a running daemon, and complete to nothing without one.',
];

/** The body of the bash script, which zsh runs too (through bashcompinit). */
function bashBody(root: CommandInfo): string {
  const globals = root.options;
  const commands = everyCommand(root);
  const valuedFlags = (info: CommandInfo) =>
    [...new Set([...globals, ...info.options].filter((option) => option.takesValue).flatMap(flagsOf))].join(' ');
  const pattern = (words: string[]) => words.map((word) => `'${quoteSingle(word)}'`).join('|');
  const choices = (values: readonly string[]) => `words='${quoteSingle(values.join(' '))}'`;
  const action = (values: Values) =>
    'choices' in values ? `${choices(values.choices)} ;;` : `_mem_daemon_values ${values.kind} "$cur"; return ;;`;

  const transitions = commands
    .filter((info) => info.path.length > 1)
    .map((info) => {
      const parent = info.path.slice(0, -1).join(' ');
      const path = info.path.join(' ');
      return `      ${pattern(info.names.map((name) => `${parent} ${name}`))}) cmd='${path}' valued='${valuedFlags(info)}' ;;`;
    });
  const optionValues = commands.flatMap((info) =>
    info.options
      .filter((option) => option.values)
      .map((option) => `    ${pattern(flagsOf(option).map((flag) => `${info.path.join(' ')} ${flag}`))}) ${action(option.values as Values)}`),
  );
  const argumentValues = commands.flatMap((info) => {
    const path = info.path.join(' ');
    return info.arguments.flatMap((argument, index) => {
      if (!argument.values) return [];
      if (!argument.variadic) return [`      '${path} ${index}') ${action(argument.values)}`];
      // A variadic argument is the last: it takes every position from its own on.
      const before = Array.from({ length: index }, (_, position) => `'${path} ${position}'`);
      return [...(before.length > 0 ? [`      ${before.join('|')}) ;;`] : []), `      '${path} '*) ${action(argument.values)}`];
    });
  });
  const wordLists = commands.map((info) => {
    const words = [...info.subcommands.map((sub) => sub.path.at(-1) ?? ''), ...info.options.map((o) => o.long), ...globals.map((o) => o.long), '--help'];
    return `      '${info.path.join(' ')}') words='${[...new Set(words)].join(' ')}' ;;`;
  });

  return `${DAEMON_NOTE.map((line) => `# ${line}`).join('\n')}

# Adds the daemon's values of kind $1 that start with $2 to COMPREPLY, quoted for the command line.
_mem_daemon_values() {
  local line prefix="\${2//\\\\/}"
  prefix="\${prefix#[\\"\\']}"
  while IFS= read -r line; do
    [[ -n $line ]] && COMPREPLY+=("$(printf '%q' "$line")")
  done < <(mem __complete "$1" -- "$prefix" 2>/dev/null)
}

_mem() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # cmd is the command typed so far; not "path", which zsh ties to $PATH.
  local cmd='mem' valued='${valuedFlags(root)}' args=0 words='' word i
  COMPREPLY=()
  # The words before the cursor: commands (or their aliases) make cmd, an option's value is skipped,
  # any other word is an argument of the command.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if [[ $word == -* ]]; then
      [[ " $valued " == *" $word "* ]] && ((i++))
      continue
    fi
    case "$cmd $word" in
${transitions.join('\n')}
      *) ((args++)) ;;
    esac
  done
  # The value of an option: one of its choices, the daemon's values, or anything (the shell's default).
  case "$cmd $prev" in
${optionValues.join('\n')}
    *) [[ " $valued " == *" $prev "* ]] && return ;;
  esac
  # The value of an argument, by its position after the command.
  if [[ -z $words && $cur != -* ]]; then
    case "$cmd $args" in
${argumentValues.join('\n')}
    esac
  fi
  # Otherwise the command's subcommands and options.
  if [[ -z $words ]]; then
    case "$cmd" in
${wordLists.join('\n')}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _mem mem
`;
}

function bash(root: CommandInfo): string {
  return `# bash completion for mem (generated by \`mem completion bash\`; do not edit)
# Install: mem completion bash > ~/.local/share/bash-completion/completions/mem
${bashBody(root)}`;
}

function zsh(root: CommandInfo): string {
  return `#compdef mem
# zsh completion for mem (generated by \`mem completion zsh\`; do not edit)
# Install: mem completion zsh > "\${fpath[1]}/_mem"  (or any directory on $fpath), then restart zsh
autoload -U +X bashcompinit && bashcompinit
${bashBody(root)}`;
}

function fish(root: CommandInfo): string {
  const commands = everyCommand(root);
  const valuedFlags = (info: CommandInfo) =>
    [...new Set([...root.options, ...info.options].filter((option) => option.takesValue).flatMap(flagsOf))].join(' ');
  const at = (info: CommandInfo, argument?: string) =>
    `-n "__mem_at '${info.path.join(' ')}'${argument === undefined ? '' : ` ${argument}`}"`;
  const flags = (option: OptionInfo) =>
    `-l ${option.long.replace(/^--/, '')}${option.short ? ` -s ${option.short.replace(/^-/, '')}` : ''}`;
  const candidates = (values: Values) =>
    'choices' in values
      ? `-a '${quoteSingle(values.choices.join(' '))}'`
      : `-a '(mem __complete --describe ${values.kind} -- (commandline -ct | string unescape) 2>/dev/null)'`;
  const optionLine = (option: OptionInfo, condition: string) =>
    [
      'complete -c mem',
      condition,
      flags(option),
      // -x: takes a value and completes no files for it; -r: takes a value (then the default: files).
      option.values ? `-x ${candidates(option.values)}` : option.takesValue ? '-r' : '',
      `-d '${quoteSingle(option.description)}'`,
    ]
      .filter(Boolean)
      .join(' ');

  const transitions = commands
    .filter((info) => info.path.length > 1)
    .flatMap((info) => {
      const parent = info.path.slice(0, -1).join(' ');
      return [
        `                case ${info.names.map((name) => `'${parent} ${name}'`).join(' ')}`,
        `                    set cmd '${info.path.join(' ')}'; set valued ${valuedFlags(info)}`,
      ];
    });
  const lines = [
    '# fish completion for mem (generated by `mem completion fish`; do not edit)',
    '# Install: mem completion fish > ~/.config/fish/completions/mem.fish',
    ...DAEMON_NOTE.map((line) => `# ${line}`),
    '',
    '# Where the command line stands: the command path typed so far (aliases resolved, e.g. "mem users set-tier"),',
    "# then how many arguments follow it (an option's value is not one).",
    'function __mem_position',
    '    set -l cmd mem',
    `    set -l valued ${valuedFlags(root)}`,
    '    set -l args 0',
    '    set -l skip 0',
    '    for word in (commandline -opc)[2..-1]',
    '        if test $skip = 1',
    '            set skip 0',
    "        else if string match -q -- '-*' $word",
    '            contains -- $word $valued; and set skip 1',
    '        else',
    '            switch "$cmd $word"',
    ...transitions,
    "                case '*'",
    '                    set args (math $args + 1)',
    '            end',
    '        end',
    '    end',
    '    printf "%s\\n" $cmd $args',
    'end',
    '',
    '# True when the command line is at the command CMD and, when N is given, at its argument N (N+: or later).',
    'function __mem_at -a cmd n',
    '    set -l position (__mem_position)',
    '    test "$position[1]" = "$cmd"; or return 1',
    '    switch "$n"',
    "        case ''",
    '            return 0',
    "        case '*+'",
    '            test $position[2] -ge (string trim -r -c + -- $n)',
    "        case '*'",
    '            test $position[2] -eq $n',
    '    end',
    'end',
    '',
    'complete -c mem -f',
    ...root.options.map((option) => optionLine(option, '')),
  ];
  for (const info of commands) {
    for (const sub of info.subcommands) {
      lines.push(`complete -c mem ${at(info)} -a ${sub.path.at(-1)} -d '${quoteSingle(sub.description)}'`);
    }
    if (info.path.length > 1) {
      for (const option of info.options) lines.push(optionLine(option, at(info)));
      info.arguments.forEach((argument, index) => {
        if (argument.values) {
          lines.push(`complete -c mem ${at(info, `${index}${argument.variadic ? '+' : ''}`)} ${candidates(argument.values)} -d '${quoteSingle(argument.description)}'`);
        }
      });
    }
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(program: Command, shell: Shell): string {
  const root = walk(program, ['mem']);
  return shell === 'bash' ? bash(root) : shell === 'zsh' ? zsh(root) : fish(root);
}
