// How the CLI talks: JSON for scripts, plain lines for logs, a live counter on a terminal.

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function line(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Progress of a long build: one rewritten line on a terminal, nothing otherwise (results are printed as plain lines). */
export function progressReporter(enabled: boolean): { update(done: number, total: number): void; finish(): void } {
  const tty = enabled && process.stderr.isTTY;
  let shown = false;
  return {
    update(done, total) {
      if (!tty) return;
      process.stderr.write(`\r\x1b[2Kbuilding: ${done}/${total} organizations`);
      shown = true;
    },
    finish() {
      if (shown) process.stderr.write('\r\x1b[2K');
    },
  };
}
