// A log (runtime/log.ts) that remembers its lines, so tests can assert what was (and was not) logged.
import type { Log, LogFields } from '../../runtime/log.ts';

export class RecordingLog implements Log {
  readonly lines: Array<{ level: 'info' | 'warn' | 'error'; message: string; fields: LogFields }> = [];
  info(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'info', message, fields });
  }
  warn(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'warn', message, fields });
  }
  error(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'error', message, fields });
  }
}
