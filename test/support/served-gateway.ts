// The real `marquee serve` process, set up as an operator would: organizations published into a
// temporary directory store, their rows in the embedded platform database (where `keys create
// --org` looks them up), keys made and revoked with the real CLI, and the gateway started with
// MARQUEE_HOME, SNAPSHOT_STORE and PORT=0. Everything lives in one temporary directory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../../builder/platform/migrations.ts';
import { openPlatformDatabase } from '../../records/database/database-backends.ts';
import type { Coding } from '../../snapshot/codings.ts';
import { DirectoryStore } from '../../snapshot/stores/directory.ts';
import { marquee, marqueeProcess } from './cli.ts';
import { API, publishFixture } from './gateway-fixtures.ts';
import type { PlatformFixture } from './platform-fixture.ts';

/** `keys create --json` (docs/design.md, "Process model and configuration"). */
export interface CreatedKey {
  id: string;
  key: string;
  organizationId: string;
  origins: string[];
}

export interface ServedGateway {
  /** e.g. http://127.0.0.1:41234, as `serve` printed it. */
  url: string;
  /** `url` + /api/integration/v1 */
  api: string;
  /** Everything the process printed so far. */
  output(): string;
  createKey(organization: string, options?: { origins?: string[]; label?: string }): Promise<CreatedKey>;
  revokeKey(id: string): Promise<void>;
  /** Stops the process (SIGTERM, waits for its exit) and removes the directory. */
  stop(): Promise<void>;
}

/** `options.codings`: the coded forms the fixtures are published with (SNAPSHOT_CODINGS); absent: a build's default. */
export async function startServedGateway(organizations: PlatformFixture[], options: { codings?: readonly Coding[] } = {}): Promise<ServedGateway> {
  const home = await mkdtemp(join(tmpdir(), 'marquee-served-'));
  const storeDir = join(home, 'store');
  const env: Record<string, string> = {
    MARQUEE_HOME: home,
    SNAPSHOT_STORE: storeDir,
    PORT: '0',
    ADMIN_PORT: '0',
    // Whatever the surrounding shell says: the embedded database, and the socket's own address
    // for the invalid-credentials throttle.
    DATABASE_URL: '',
    PLATFORM_SCHEMA: '',
    TRUST_PROXY: '',
  };
  let server: ServeProcess;
  try {
    const store = new DirectoryStore(storeDir);
    for (const fixture of organizations) await publishFixture(store, fixture, options.codings !== undefined ? { codings: options.codings } : {});
    // The gateway never opens the platform database, so it starts while the rows go in.
    const [rows, started] = await Promise.allSettled([insertOrganizations(home, organizations), startServe(env)]);
    if (started.status === 'rejected') throw started.reason;
    server = started.value;
    if (rows.status === 'rejected') {
      await server.stop();
      throw rows.reason;
    }
  } catch (error) {
    await rm(home, { recursive: true, force: true });
    throw error;
  }
  const { url } = server;

  // The embedded database serves one process at a time: CLI commands that open it run in turn.
  let cliQueue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const run = cliQueue.then(work, work);
    cliQueue = run.catch(() => undefined);
    return run;
  };

  return {
    url,
    api: `${url}${API}`,
    output: server.output,
    createKey: (organization, options = {}) =>
      inTurn(async () => {
        const args = ['keys', 'create', '--org', organization, '--json'];
        for (const origin of options.origins ?? []) args.push('--origin', origin);
        if (options.label !== undefined) args.push('--label', options.label);
        const run = await marquee(args, env);
        if (run.code !== 0) throw new Error(`keys create failed (${run.code}): ${run.stderr}`);
        return JSON.parse(run.stdout) as CreatedKey;
      }),
    revokeKey: async (id) => {
      const run = await marquee(['keys', 'revoke', id], env);
      if (run.code !== 0) throw new Error(`keys revoke failed (${run.code}): ${run.stderr}`);
    },
    stop: async () => {
      await server.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The platform's own rows: only the organizations, which is all `keys create` reads. */
async function insertOrganizations(home: string, organizations: PlatformFixture[]): Promise<void> {
  const db = await openPlatformDatabase({ home });
  try {
    await migrate(db);
    for (const { organization } of organizations) {
      await db.query('INSERT INTO organizations (id, name, slug, status) VALUES ($1, $2, $3, $4)', [organization.id, organization.name, organization.slug, organization.status]);
    }
  } finally {
    await db.close();
  }
}

interface ServeProcess {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

const READY = /gateway listening on (http:\/\/\S+),/;
const READY_TIMEOUT_MS = 30_000;

/** `marquee serve`, resolved once it prints the address it listens on (test/support/cli.ts). */
async function startServe(env: Record<string, string>): Promise<ServeProcess> {
  const { match, output, stop } = await marqueeProcess(['serve'], env, READY, { readyTimeoutMs: READY_TIMEOUT_MS });
  return { url: match[1]!, output, stop };
}
