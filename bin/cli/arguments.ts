// The command line's rules beyond commander's own: the parsers of option values shared by the
// commands' registrations, and how a wrong command line is answered — exit status 2, what is wrong
// and the command's usage line (docs/operation.md), whether commander finds it or the command does.
// A parser imports only what is light: every command's registration loads it, for `--help` too;
// a value only a command's own modules can judge is checked first thing in the command
// (bin/usage.ts), before it opens anything.
import { type Command, InvalidArgumentError } from 'commander';
import { normalizeAllowedOrigin } from '../../records/keys/origins.ts';

/**
 * After any refusal of a command line, each command prints its usage line and where its options
 * are explained, not its whole help, which buried the one line saying what was wrong.
 */
export function showUsageAfterErrors(command: Command): void {
  command.showHelpAfterError(usageOf(command));
  for (const subcommand of command.commands) showUsageAfterErrors(subcommand);
}

/** `Usage: marquee keys create [options]`, and the command that says more. */
export function usageOf(command: Command): string {
  const usage = command.createHelp().commandUsage(command);
  return `Usage: ${usage}\n(${usage.slice(0, usage.length - command.usage().length).trimEnd()} --help for more)`;
}

/** A repeatable option's values, in order. */
export const collect = (value: string, previous: string[]): string[] => [...previous, value];

export const minutes = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number of minutes');
  return Number(value);
};

export const wholeNumber = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return Number(value);
};

/** Seconds, as the configuration's timeouts take them (above 0, at most an hour); in milliseconds. */
export const secondsMs = (value: string): number => {
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0 || Number(value) > 3600) throw new InvalidArgumentError('must be a number of seconds above 0 and at most 3600');
  return Math.round(Number(value) * 1000);
};

/** `--origin` of keys, repeatable: each a browser origin (records/keys/origins.ts), refused here with the reason. */
export const origins = (value: string, previous: string[]): string[] => {
  const parsed = normalizeAllowedOrigin(value);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.reason);
  return [...previous, value];
};
