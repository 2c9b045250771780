// The builders' signing key (SNAPSHOT_SIGNING_KEY, docs/design.md "History as evidence"): read
// once at a build's start, made once under MARQUEE_HOME for a directory store when unset.
import { closeSync, fchmodSync, fchownSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { OperatorError } from '../runtime/errors.ts';
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
 * `groupId`: the file is that group's too, readable (0640), for a service account that must read
 * a key root keeps: given before the key is written, so no moment shows it to anyone else.
 */
export function createSigningKeyFile(file: string, { exclusive, groupId }: { exclusive: boolean; groupId?: number }): string | undefined {
  const pem = newSigningKeyPem();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(file, exclusive ? 'wx' : 'w', 0o600);
  } catch (error) {
    if (exclusive && (error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  try {
    if (groupId !== undefined) {
      fchownSync(fd, -1, groupId);
      fchmodSync(fd, 0o640);
    }
    writeSync(fd, pem);
  } catch (error) {
    closeSync(fd);
    unlinkSync(file);
    if ((error as NodeJS.ErrnoException).code === 'EPERM') {
      throw new OperatorError(`cannot give ${file} to group ${groupId}: only root, or a member of that group, may (nothing was written)`, { cause: error });
    }
    throw error;
  }
  closeSync(fd);
  return pem;
}

/**
 * A group's id by its number or its name in /etc/group, where `useradd --system` makes the
 * service account's. A group of a directory service (LDAP, through NSS) is given by its number.
 */
export function groupIdOf(group: string, groupFile = '/etc/group'): number {
  if (/^\d+$/.test(group)) return Number(group);
  // name:password:gid:members
  const entry = readFileSync(groupFile, 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === group);
  const gid = Number(entry?.[2]);
  if (entry === undefined || !Number.isInteger(gid)) {
    throw new OperatorError(
      `no group named ${JSON.stringify(group)} in ${groupFile}: make the service account first (docs/production.md, "A recipe"), or give the group's number (getent group NAME)`,
    );
  }
  return gid;
}
