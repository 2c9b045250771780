// The builders' signing key (SNAPSHOT_SIGNING_KEY, docs/design.md "History as evidence"): read
// once at a build's start, made once under MARQUEE_HOME for a directory store when unset.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { OperatorError } from '../runtime/errors.ts';
import { newSigningKeyPem, type Signer, signerFromPem } from '../snapshot/signing.ts';
import type { Config } from './config.ts';

/** The signer builds sign with; undefined with SNAPSHOT_SIGNING_KEY=none. Throws OperatorError naming the variable. */
export function loadSigner(config: Pick<Config, 'signingKey'>): Signer | undefined {
  const setting = config.signingKey;
  if (setting === 'none') return undefined;
  if (setting === 'missing') {
    throw new OperatorError(
      'SNAPSHOT_SIGNING_KEY is not set: builders publishing to an s3:// store sign history with one key they all share. ' +
        'Make one with `marquee signing-key create FILE`, give every builder the file and set SNAPSHOT_SIGNING_KEY to its path ' +
        '(or SNAPSHOT_SIGNING_KEY=none to publish history unsigned, which `marquee verify` then reports)',
    );
  }
  const where = `SNAPSHOT_SIGNING_KEY (${setting.file})`;
  let pem: string;
  try {
    pem = readFileSync(setting.file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new OperatorError(`${where} cannot be read: ${(error as Error).message}`, { cause: error });
    if (!setting.generate) throw new OperatorError(`${where} does not exist (make one with: marquee signing-key create FILE)`);
    pem = createSigningKeyFile(setting.file, { exclusive: true }) ?? readFileSync(setting.file, 'utf8');
  }
  try {
    return signerFromPem(pem, where);
  } catch (error) {
    throw new OperatorError((error as Error).message, { cause: error });
  }
}

/**
 * Writes a new Ed25519 private key (PKCS#8 PEM, readable by its owner only) to `file` and returns
 * it; `exclusive`: never replaces a file, and returns undefined when another process made it first.
 */
export function createSigningKeyFile(file: string, { exclusive }: { exclusive: boolean }): string | undefined {
  const pem = newSigningKeyPem();
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, pem, { mode: 0o600, flag: exclusive ? 'wx' : 'w' });
  } catch (error) {
    if (exclusive && (error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  return pem;
}
