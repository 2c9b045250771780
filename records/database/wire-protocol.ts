// The few PostgreSQL wire-protocol messages the embedded database's server reads or writes itself
// (embedded-server.ts); every other message passes through to PGlite as it came. Frontend: the
// startup packet (and SSL and cancel requests before it), then typed messages. Backend:
// NotificationResponse and ReadyForQuery read out of PGlite's answers, ErrorResponse and
// ReadyForQuery written for what the server refuses itself.

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

export type FrontendMessage =
  | { kind: 'startup'; bytes: Uint8Array; parameters: Map<string, string> }
  /** SSL or GSS encryption asked for: answered 'N' (a Unix socket needs neither). */
  | { kind: 'encryption' }
  | { kind: 'cancel' }
  | { kind: 'typed'; type: string; bytes: Uint8Array };

/** Splits a client's byte stream into messages; a message that has not fully arrived waits for the rest. */
export class FrontendReader {
  private pending = Buffer.alloc(0);
  private started = false;

  read(data: Uint8Array): FrontendMessage[] {
    this.pending = this.pending.length === 0 ? Buffer.from(data) : Buffer.concat([this.pending, data]);
    const messages: FrontendMessage[] = [];
    for (;;) {
      const message = this.started ? this.typed() : this.untyped();
      if (message === undefined) return messages;
      messages.push(message);
    }
  }

  /** Before the startup packet: int32 length (itself included), int32 code, body. */
  private untyped(): FrontendMessage | undefined {
    if (this.pending.length < 8) return undefined;
    const length = this.pending.readInt32BE(0);
    if (length < 8 || this.pending.length < length) return undefined;
    const code = this.pending.readInt32BE(4);
    const bytes = new Uint8Array(this.pending.subarray(0, length));
    const body = this.pending.subarray(8, length);
    this.pending = this.pending.subarray(length);
    if (code === SSL_REQUEST || code === GSS_REQUEST) return { kind: 'encryption' };
    if (code === CANCEL_REQUEST) return { kind: 'cancel' };
    if (code !== PROTOCOL_3) throw new Error(`unsupported frontend protocol ${code}`);
    this.started = true;
    return { kind: 'startup', bytes, parameters: startupParameters(body) };
  }

  /** After it: a type byte, int32 length (itself included), body. */
  private typed(): FrontendMessage | undefined {
    if (this.pending.length < 5) return undefined;
    const length = this.pending.readInt32BE(1);
    if (this.pending.length < 1 + length) return undefined;
    const bytes = new Uint8Array(this.pending.subarray(0, 1 + length));
    this.pending = this.pending.subarray(1 + length);
    return { kind: 'typed', type: String.fromCharCode(bytes[0]!), bytes };
  }
}

/** The startup packet's name/value pairs (user, database, application_name, statement_timeout, options…). */
function startupParameters(body: Buffer): Map<string, string> {
  const parts = body.toString('utf8').split('\0');
  const parameters = new Map<string, string>();
  for (let at = 0; at + 1 < parts.length && parts[at] !== ''; at += 2) parameters.set(parts[at]!, parts[at + 1]!);
  return parameters;
}

/** The SQL a Query ('Q': text) or Parse ('P': name, text, …) message carries. */
export function statementText(message: { type: string; bytes: Uint8Array }): string | undefined {
  const body = Buffer.from(message.bytes.buffer, message.bytes.byteOffset + 5, message.bytes.length - 5);
  if (message.type === 'Q') return body.toString('utf8', 0, Math.max(0, body.indexOf(0)));
  if (message.type === 'P') {
    const nameEnd = body.indexOf(0);
    return body.toString('utf8', nameEnd + 1, body.indexOf(0, nameEnd + 1));
  }
  return undefined;
}

/** ErrorResponse with severity, SQLSTATE and message. */
export function errorResponse(severity: 'ERROR' | 'FATAL', code: string, message: string): Buffer {
  const fields = Buffer.from(`S${severity}\0V${severity}\0C${code}\0M${message}\0\0`, 'utf8');
  const head = Buffer.alloc(5);
  head.write('E', 0, 'latin1');
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/** ReadyForQuery: 'I' idle, 'T' in a transaction, 'E' in a failed one. */
export function readyForQuery(status: TransactionStatus): Buffer {
  return Buffer.from([0x5a, 0, 0, 0, 5, status.charCodeAt(0)]);
}

export type TransactionStatus = 'I' | 'T' | 'E';

/** The frontend's Sync: ends an extended-protocol exchange, and the error state one may have left. */
export const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

/**
 * Finds NotificationResponse ('A': int32 length, int32 pid, channel\0, payload\0) and
 * ReadyForQuery ('Z', with the transaction status) in a stream of backend messages that may
 * arrive in pieces.
 */
export class BackendReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    private readonly onNotification: (channel: string, payload: string) => void,
    private readonly onReadyForQuery: (status: TransactionStatus) => void,
  ) {}

  read(data: Uint8Array): void {
    this.pending = this.pending.length === 0 ? Buffer.from(data) : Buffer.concat([this.pending, data]);
    let offset = 0;
    while (this.pending.length - offset >= 5) {
      const length = this.pending.readInt32BE(offset + 1);
      if (this.pending.length - offset < 1 + length) break;
      if (this.pending[offset] === 0x5a) this.onReadyForQuery(String.fromCharCode(this.pending[offset + 5]!) as TransactionStatus);
      if (this.pending[offset] === 0x41) {
        const body = this.pending.subarray(offset + 9, offset + 1 + length);
        const channelEnd = body.indexOf(0);
        const payloadEnd = body.indexOf(0, channelEnd + 1);
        if (channelEnd >= 0 && payloadEnd >= 0) {
          this.onNotification(body.subarray(0, channelEnd).toString('utf8'), body.subarray(channelEnd + 1, payloadEnd).toString('utf8'));
        }
      }
      offset += 1 + length;
    }
    this.pending = this.pending.subarray(offset);
  }
}
