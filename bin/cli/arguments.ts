// Option parsers shared by the commands' registrations.
import { InvalidArgumentError } from 'commander';

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
