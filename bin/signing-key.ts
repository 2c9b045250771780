// The builders' signing key (SNAPSHOT_SIGNING_KEY, docs/design.md "History as evidence"): read
// once at a build's start, made once under MARQUEE_HOME for a directory store when unset.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Signer, newSigningKeyPem, signerFromPem } from '../snapshot/signing.ts';
import { type Config, ConfigError, signingKeyProblem } from './config.ts';

/**
 * The signer builds sign with; undefined with SNAPSHOT_SIGNING_KEY=none. A key that cannot sign is
 * a ConfigError naming the variable: the commands that build found it already with the rest of
 * their configuration (bin/config.ts), before making anything; this refuses any other caller.
 */
export function loadSigner(config: Pick<Config, 'signingKey'>): Signer | undefined {
  const setting = config.signingKey;
  const problem = signingKeyProblem(setting);
  if (problem !== undefined) throw new ConfigError([problem]);
  // 'missing' always has a problem.
  if (typeof setting === 'string') return undefined;
  const where = `SNAPSHOT_SIGNING_KEY (${setting.file})`;
  // Unset for a directory store: made at the first build, by whichever process gets there first.
  const pem = setting.generate
    ? (readIfExists(setting.file) ?? createSigningKeyFile(setting.file, { exclusive: true }) ?? readFileSync(setting.file, 'utf8'))
    : readFileSync(setting.file, 'utf8');
  try {
    return signerFromPem(pem, where);
  } catch (error) {
    throw new ConfigError([(error as Error).message]);
  }
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Writes a new Ed25519 private key (PKCS#8 PEM, readable by its owner only) to `file` and returns
 * it; `exclusive`: never replaces a file, and returns undefined when another process made it first.
 */
export function createSigningKeyFile(file: string, { exclusive }: { exclusive: boolean }): string | undefined {
  const pem = newSigningKeyPem();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, pem, { mode: 0o600, flag: exclusive ? 'wx' : 'w' });
  } catch (error) {
    if (exclusive && (error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  return pem;
}
