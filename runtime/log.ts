// The one log of a Marquee process: the gateway and the builder's runner write their operational
// events here (a build's results, a store that cannot be read, a request that failed), and bin/
// implements it once (bin/log.ts: JSON lines, or readable lines on a terminal) and injects it.
// Only the interface lives here, below both sides, so neither depends on how lines are written.
//
// Conventions: the message is a short human sentence; what a program would filter on goes in
// fields (organizationId, trigger, path…). An error goes in `err`, as the Error itself: the
// implementation writes its message, every cause and the stack. Never put a secret in a field
// (an API key, a token, a password): logs are read by more people than keys are.

export type LogFields = Record<string, unknown>;

export interface Log {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}
