// Auditors run every check with an auditor credential (issue 35 item 4), through the real program:
// `marquee start` on its embedded PGlite and directory store, an auditor credential made with
// `marquee admins create`. One organization's history verified through the API is what
// `marquee verify --org ID --json` prints, intact and after an object is removed from the store;
// a verification of every organization runs as a job (202, Location, progress, then the summary
// and each broken organization with its break kind as `verify --all --json` finds it), one at a
// time, and is recorded in the audit trail; the trail's verification is `audit-log verify --json`'s;
// the publication log's latest checkpoint is `checkpoint --json`'s; an as-of answer links to the
// inclusion proof of its manifest, which the independent verifier (examples/verify-publication-log.mjs)
// accepts with the checkpoint beside it and refuses once changed; unknown organizations, snapshots
// and jobs are 404 problems; the console shows all of it to the auditor.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_API_BASE } from '../../../admin/api-routes.ts';
import { manifestKey, objectKey } from '../../../snapshot/layout.ts';
import { readManifest, readPointer } from '../../../snapshot/reader.ts';
import { DirectoryStore } from '../../../snapshot/stores/directory.ts';
import { adminContractFetch } from '../../support/admin-contract.ts';
import { adminSecret, marquee, marqueeProcess } from '../../support/cli.ts';
import { until } from '../../support/until.ts';

const VERIFIER = fileURLToPath(new URL('../../../examples/verify-publication-log.mjs', import.meta.url));

type Process = Awaited<ReturnType<typeof marqueeProcess>>;
interface SnapshotInclusion {
  organizationId: string;
  snapshotId: string;
  manifestHash: string;
  inclusion: { checkpoint: string; proof: { leafIndex: number; proof: string[] } } | null;
  inclusionReason?: string;
}
interface Job {
  id: string;
  state: string;
  requestedBy: string;
  done: number;
  total: number;
  result: { ok: boolean; store: string; against: string; summary: Record<string, unknown>; broken: Array<Record<string, unknown>> } | null;
}

let home: string;
let start: Process;
let admin: string;
let auditor: string;
const env = () => ({ MARQUEE_HOME: home });
const fetch = adminContractFetch(() => admin);

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-auditor-checks-'));
  start = await marqueeProcess(['start'], { ...env(), PORT: '0', ADMIN_PORT: '0', BUILD_SCHEDULE: '0 0 1 1 *' }, /console: (http:\/\/\S+)\/ \(/);
  admin = start.match[1]!;
  auditor = await adminSecret(env(), 'ada', 'auditor');
}, 180_000);

afterAll(async () => {
  await start?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

function call(method: string, path: string): Promise<Response> {
  return fetch(`${admin}${ADMIN_API_BASE}${path}`, {
    method,
    headers: { Authorization: `Bearer ${auditor}`, ...(method === 'GET' ? {} : { 'Content-Type': 'application/json' }) },
  });
}

/** The independent verifier, as an auditor runs it: its exit status and what it printed. */
function verifier(...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [VERIFIER, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, out: `${stdout}${stderr}` });
    });
  });
}

async function cliJson(args: string[]): Promise<unknown> {
  const done = await marquee([...args, '--json'], env());
  return JSON.parse(done.stdout);
}

/**
 * A report with `against` cut to what both doors say alike: the CLI names the database as it
 * reaches it (the embedded one through `start`'s process), the admin port as it holds it.
 */
function alike<T extends { against?: string; ok: boolean }>(report: T): T {
  return { ...report, against: report.against?.replace(/ \(through process [^)]*\)/, '') };
}

async function organizationIdOf(slug: string): Promise<string> {
  const organizations = (await (await call('GET', '/organizations')).json()) as Array<{ id: string; slug: string }>;
  return organizations.find((org) => org.slug === slug)!.id;
}

async function finished(id: string): Promise<Job> {
  let job: Job | undefined;
  await expect
    .poll(
      async () => {
        job = (await (await call('GET', `/verifications/${id}`)).json()) as Job;
        return job.state;
      },
      { timeout: 60_000, interval: 100 },
    )
    .not.toBe('running');
  return job!;
}

describe('an auditor credential', () => {
  it("verifies one organization's history as `verify --org ID --json` does", async () => {
    const id = await organizationIdOf('nordic-dev');
    const answer = await call('GET', '/organizations/nordic-dev/verify');
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { ok: boolean; against: string; organizations: unknown[] };
    expect(body).toMatchObject({ ok: true, organizations: [{ organizationId: id, ok: true }] });
    expect(alike(body)).toEqual(alike((await cliJson(['verify', '--org', id])) as typeof body));
  });

  it('is answered 404 for an organization neither the platform nor the store knows, and a job this process does not keep', async () => {
    for (const path of ['/organizations/no-such-org/verify', '/organizations/00000000-0000-4000-8000-000000000000/verify']) {
      const answer = await call('GET', path);
      expect(answer.status, path).toBe(404);
      expect(await answer.json()).toMatchObject({ errorCode: 'ORGANIZATION_NOT_FOUND' });
    }
    const job = await call('GET', '/verifications/none');
    expect(job.status).toBe(404);
    expect(await job.json()).toMatchObject({ errorCode: 'VERIFICATION_NOT_FOUND' });
  });

  it('verifies the audit trail as `audit-log verify --json` does', async () => {
    const answer = await call('GET', '/audit-log/verify');
    expect(answer.status).toBe(200);
    const verdict = (await answer.json()) as { ok: boolean; entries: number };
    expect(verdict).toMatchObject({ ok: true, broken: null });
    const cli = (await cliJson(['audit-log', 'verify'])) as { ok: boolean; entries: number };
    // The CLI reads the trail a moment later: the same verdict, with as many entries or more.
    expect(cli.ok).toBe(true);
    expect(cli.entries).toBeGreaterThanOrEqual(verdict.entries);
  });

  it("reads the publication log's latest checkpoint as `checkpoint --json` prints it", async () => {
    // The CLI first: it writes a checkpoint of the log as it is, which the API then reads.
    const cli = await cliJson(['checkpoint']);
    const answer = await call('GET', '/checkpoint');
    expect(answer.status).toBe(200);
    const latest = (await answer.json()) as { size: number; origin: string };
    expect(latest).toEqual(cli);
    // With a kept checkpoint's size, the consistency proof from it (as `checkpoint --since KEPT --proof FILE`, whose test checks one with the example verifier).
    const same = await call('GET', `/checkpoint?since=${latest.size}`);
    expect(same.status).toBe(200);
    expect(await same.json()).toEqual({
      ...latest,
      consistencyProof: { format: 1, kind: 'consistency-proof', origin: latest.origin, oldSize: latest.size, newSize: latest.size, proof: [] },
    });
    for (const since of [String(latest.size + 1), 'x', '-1']) {
      const refused = await call('GET', `/checkpoint?since=${since}`);
      expect(refused.status, since).toBe(400);
      expect(await refused.json()).toMatchObject({ errorCode: 'BAD_REQUEST' });
    }
  });

  it("gets the inclusion proof of an as-of answer's manifest, linked from the answer, which the example verifier accepts", async () => {
    const id = await organizationIdOf('nordic-dev');
    const answer = await call('GET', `/organizations/nordic-dev/as-of?at=${encodeURIComponent(new Date().toISOString())}&path=/organization`);
    expect(answer.status).toBe(200);
    const snapshotId = answer.headers.get('marquee-snapshot-id')!;
    const link = answer.headers.get('link');
    expect(link).toBe(`<${ADMIN_API_BASE}/organizations/nordic-dev/snapshots/${snapshotId}/inclusion>; rel="related"; title="inclusion proof"`);
    const path = /^<([^>]+)>/.exec(link!)![1]!.slice(ADMIN_API_BASE.length);
    // The builder writes a checkpoint after the run that published, and every 30 s while the log
    // grows: until one covers the manifest, the answer says so. Any other answer fails at once.
    const proved = await until(
      'a checkpoint covering the manifest',
      async () => {
        const response = await call('GET', path);
        const body = (await response.json()) as SnapshotInclusion;
        expect(response.status, JSON.stringify(body)).toBe(200);
        if (body.inclusion !== null) return body;
        expect(body.inclusionReason).toMatch(/^(the store holds no checkpoint|no checkpoint covers it yet)/);
        return undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(proved).toMatchObject({ organizationId: id, snapshotId, manifestHash: answer.headers.get('marquee-manifest-hash') });

    const { checkpoint, proof } = proved.inclusion!;
    const [checkpointFile, proofFile, changedFile] = [join(home, 'inclusion.checkpoint'), join(home, 'inclusion.json'), join(home, 'changed.json')];
    await writeFile(checkpointFile, checkpoint);
    await writeFile(proofFile, JSON.stringify(proof));
    const flipped = Buffer.from(proof.proof[0]!, 'base64');
    flipped[0]! ^= 1;
    await writeFile(changedFile, JSON.stringify({ ...proof, proof: [flipped.toString('base64'), ...proof.proof.slice(1)] }));
    const keyId = /keyId=([0-9a-f]+)/.exec(answer.headers.get('marquee-signature')!)![1]!;
    const store = join(home, 'snapshots');
    const verifyWith = (file: string) =>
      verifier('inclusion', checkpointFile, file, '--key', join(store, 'signing-keys', `${keyId}.json`), '--object', join(store, manifestKey(id, snapshotId)));
    const accepted = await verifyWith(proofFile);
    expect(accepted, accepted.out).toMatchObject({ code: 0 });
    expect(accepted.out).toContain(`"id":"${snapshotId}"`);
    const refused = await verifyWith(changedFile);
    expect(refused, refused.out).toMatchObject({ code: 1 });
    expect(refused.out).toMatch(/is not in the checkpoint's tree/);

    // A well-formed id the organization never had is 404; a path in its place is refused by its form (400), before any look-up.
    const missing = await call('GET', '/organizations/nordic-dev/snapshots/20200101T000000000Z-000000000000/inclusion');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ errorCode: 'SNAPSHOT_NOT_FOUND' });
    const malformed = await call('GET', '/organizations/nordic-dev/snapshots/..%2F..%2Fpointer/inclusion');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ errorCode: 'BAD_REQUEST' });
  });

  it("shows an as-of answer's place in the publication log on the console, linking the proof the admin API answers the auditor", async () => {
    // After the test above, which waited for a checkpoint covering nordic-dev's manifest.
    const basic = `Basic ${Buffer.from(`ada:${auditor}`).toString('base64')}`;
    const page = await globalThis.fetch(`${admin}/as-of?organization=nordic-dev&at=${encodeURIComponent(new Date().toISOString())}&path=%2Forganization`, {
      headers: { Authorization: basic },
    });
    const html = await page.text();
    expect(page.status, html).toBe(200);
    const line = /<dt>Publication log<\/dt><dd>leaf (\d+) of the checkpoint of (\d+) leaves \(<a href="([^"]+)">inclusion proof<\/a>/.exec(html);
    expect(line, html).not.toBeNull();
    const [, leaf, treeSize, href] = line!;
    expect(Number(leaf)).toBeLessThan(Number(treeSize));
    const snapshotId = /<dt>Snapshot<\/dt><dd><code>([^<]+)<\/code>/.exec(html)![1]!;
    expect(href).toBe(`${ADMIN_API_BASE}/organizations/nordic-dev/snapshots/${snapshotId}/inclusion`);
    // The link works from the auditor's browser, on the credentials the console asked for.
    const proof = await globalThis.fetch(`${admin}${href}`, { headers: { Authorization: basic } });
    expect(proof.status).toBe(200);
    expect(((await proof.json()) as SnapshotInclusion).inclusion?.proof.leafIndex).toBe(Number(leaf));
  });
  it('runs a verification of every organization as a job, recorded in the trail, one at a time', async () => {
    const started = await call('POST', '/verifications');
    expect(started.status).toBe(202);
    const job = (await started.json()) as Job;
    expect(started.headers.get('location')).toBe(`${ADMIN_API_BASE}/verifications/${job.id}`);
    expect(job).toMatchObject({ requestedBy: 'ada' });
    // A second while it runs is the running one.
    const again = await call('POST', '/verifications');
    const second = (await again.json()) as Job;
    if (second.id !== job.id) expect((await call('GET', `/verifications/${job.id}`)).status).toBe(200);
    const done = await finished(job.id);
    expect(done).toMatchObject({ state: 'finished', result: { ok: true, broken: [] } });
    expect(done.done).toBe(done.total);
    const all = (await cliJson(['verify', '--all'])) as { ok: boolean; organizations: unknown[]; against: string; store: string };
    expect(alike(done.result!)).toMatchObject({ store: all.store, against: alike(all).against, summary: { organizations: all.organizations.length, broken: 0 } });
    const listed = (await (await call('GET', '/verifications')).json()) as Job[];
    expect(listed.map((listedJob) => listedJob.id)).toContain(job.id);
    const trail = (await (await call('GET', '/audit-log?action=verification.requested')).json()) as { entries: Array<Record<string, unknown>> };
    expect(trail.entries).toContainEqual(expect.objectContaining({ actor: 'ada', actorRole: 'auditor', door: 'api', targetId: job.id, outcome: 'ok' }));
  });

  it('is told of an object removed from the store as the CLI is, for the organization and in a job', async () => {
    const id = await organizationIdOf('nordic-dev');
    // The object the current /organization answer is stored in, which the console's as-of test below needs:
    // any other object would break the history as well, but leave that answer readable.
    const store = new DirectoryStore(join(home, 'snapshots'));
    const pointer = await readPointer(store, id);
    const manifest = await readManifest(store, id, pointer!.snapshotId!);
    await rm(join(home, 'snapshots', objectKey(id, manifest!.resources['/organization']!)));
    const one = (await (await call('GET', '/organizations/nordic-dev/verify')).json()) as { ok: boolean; against: string; organizations: Array<{ break?: { kind: string } }> };
    expect(one).toMatchObject({ ok: false, organizations: [{ break: { kind: 'object-missing' } }] });
    expect(alike(one)).toEqual(alike((await cliJson(['verify', '--org', id])) as typeof one));
    const job = (await (await call('POST', '/verifications')).json()) as Job;
    const done = await finished(job.id);
    const all = (await cliJson(['verify', '--all'])) as { organizations: Array<{ ok: boolean }> };
    expect(done.result).toMatchObject({ ok: false, summary: { broken: 1, breaks: { 'object-missing': 1 } } });
    expect(done.result!.broken).toEqual(all.organizations.filter((organization) => !organization.ok));
  });
});

describe('the console, for an auditor', () => {
  const basic = () => `Basic ${Buffer.from(`ada:${auditor}`).toString('base64')}`;
  const open = async (path: string) => {
    const answer = await globalThis.fetch(`${admin}${path}`, { headers: { Authorization: basic() }, redirect: 'manual' });
    return { status: answer.status, html: await answer.text(), location: answer.headers.get('location') };
  };

  it("shows an organization's history verified, the trail verified, and the audit log's until filter", async () => {
    const history = await open('/organizations/pacific-oss/history');
    expect(history.html).toContain('/organizations/pacific-oss/verify">Verify history</a>');
    const verified = await open('/organizations/pacific-oss/verify');
    expect(verified.status).toBe(200);
    expect(verified.html).toContain('holds');
    const trail = await open('/audit-log');
    expect(trail.html).toContain('href="/audit-log/verify"');
    expect(trail.html).toContain('name="until"');
    const verdict = await open('/audit-log/verify');
    expect(verdict.status).toBe(200);
    expect(verdict.html).toContain('the audit trail holds together');
    expect((await open('/audit-log?since=1h&until=2h')).status).toBe(400);
  });

  it('refuses an as-of answer that needs the removed object, naming it and the break, instead of failing the page', async () => {
    const page = await open(`/as-of?organization=nordic-dev&at=${encodeURIComponent(new Date().toISOString())}&path=%2Forganization`);
    expect(page.status, page.html).toBe(409);
    expect(page.html).toContain('History does not verify');
    expect(page.html).toMatch(
      /\/organization of organization [0-9a-f-]{36} at \S+ cannot be answered: object [0-9a-f]{64} of organization [0-9a-f-]{36} is missing; the history breaks at \S+ \(object-missing\)/,
    );
  });

  it('starts a verification of every organization from the Verifications page and shows its result', async () => {
    const listing = await open('/verifications');
    expect(listing.status).toBe(200);
    const token = /name="_csrf" value="([^"]+)"/.exec(listing.html)?.[1];
    expect(token).toBeDefined();
    const posted = await globalThis.fetch(`${admin}/verifications`, {
      method: 'POST',
      headers: { Authorization: basic(), Origin: admin, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${encodeURIComponent(token!)}`,
      redirect: 'manual',
    });
    expect(posted.status).toBe(303);
    const location = posted.headers.get('location')!;
    expect(location).toMatch(/^\/verifications\/[0-9a-f-]{36}$/);
    await finished(location.split('/').pop()!);
    const page = await open(location);
    expect(page.status).toBe(200);
    expect(page.html).toContain('object-missing');
    expect(page.html).not.toContain('http-equiv="refresh"');
  });
});
