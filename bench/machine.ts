// What a benchmark ran on, printed first by each one: figures compare only between runs of the
// same Node.js on the same kind of machine.
import os from 'node:os';

export function machine(): string {
  return `node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${os.platform()} ${os.release()}`;
}
