// Where start's embedded database listens: a directory only its owner may enter (0700), so that
// no other account on the machine can reach the socket inside (docs/design.md "Who can reach it"). In MARQUEE_HOME when the socket's path fits a Unix socket address
// (sun_path: 108 bytes on Linux, 104 on macOS); otherwise a new private directory under the
// system's temporary directory.
import { chmod, lstat, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** PostgreSQL's socket name for port 5432: what psql and node-postgres look for in a `host` directory. */
const SOCKET_NAME = '.s.PGSQL.5432';
/** The longest socket path both Linux and macOS take, with room to spare. */
const MAX_SOCKET_PATH = 100;

export interface SocketDirectory {
  directory: string;
  socketPath: string;
  remove(): Promise<void>;
}

export async function socketDirectory(home: string): Promise<SocketDirectory> {
  const inHome = path.join(path.resolve(home), 'socket');
  if (Buffer.byteLength(path.join(inHome, SOCKET_NAME)) <= MAX_SOCKET_PATH && (await ownedPrivately(inHome))) {
    return { directory: inHome, socketPath: path.join(inHome, SOCKET_NAME), remove: async () => {} };
  }
  // mkdtemp makes the directory 0700, with a name nobody could have made first.
  const made = await mkdtemp(path.join(tmpdir(), 'marquee-db-'));
  return { directory: made, socketPath: path.join(made, SOCKET_NAME), remove: () => rm(made, { recursive: true, force: true }) };
}

/** Makes `directory` (or takes the one there) and makes it 0700; false when it is not a directory of this account's. */
async function ownedPrivately(directory: string): Promise<boolean> {
  await mkdir(directory, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const info = await lstat(directory);
  if (!info.isDirectory() || info.isSymbolicLink() || (process.getuid !== undefined && info.uid !== process.getuid())) return false;
  // mkdir's mode passes through the umask, and a directory kept from before may have another.
  await chmod(directory, 0o700);
  return true;
}
