// The trail's chain, pure: each entry's hash covers its canonical form and its predecessor's hash;
// the checker names the first entry an edit, a removal or a consistent rewrite broke, the last one
// against the heads kept in the store, and tells entries missing (a gap in the numbers, which are
// never handed out twice) from an entry changed; no secret survives into an entry. The readers'
// window: since inclusive, until exclusive, and refused when it would hold nothing.
import { describe, expect, it } from 'vitest';
import { type AuditEntry, type AuditRecord, chainedEntry, entryHash, GENESIS_HASH, scrubSecrets } from '../../../../records/trail/audit-entry.ts';
import { headKey, type StoredHead } from '../../../../records/trail/audit-heads.ts';
import { verifyAuditTrail } from '../../../../records/trail/audit-verify.ts';
import { ADMIN_ROUTES } from '../../../../admin/api-routes.ts';
import { auditWindow } from '../../../../admin/trail/audit-since.ts';
import { OperatorError } from '../../../../runtime/errors.ts';

const RECORD: AuditRecord = {
  actor: 'root',
  actorRole: 'owner',
  door: 'api',
  action: 'key.revoked',
  organizationId: '00000000-0000-4000-8000-000000000001',
  targetId: 'key_1',
  outcome: 'ok',
  reason: null,
  requestId: 'r-1',
  clientAddress: '127.0.0.1',
  changes: {},
};

function chain(length: number): AuditEntry[] {
  const entries: AuditEntry[] = [];
  for (let index = 0; index < length; index++) {
    entries.push(chainedEntry({ ...RECORD, targetId: `key_${index + 1}` }, entries.at(-1), new Date(Date.UTC(2026, 10, 26, 10, 0, index))));
  }
  return entries;
}

async function* each(entries: AuditEntry[]): AsyncIterable<AuditEntry> {
  yield* entries;
}

const head = (entry: AuditEntry): StoredHead => ({ seq: entry.seq, hash: entry.hash, key: headKey(entry) });

/** Every hash after entry `from` recomputed, as an owner rewriting the relation consistently would. */
function rewrite(entries: AuditEntry[], from: number, change: Partial<AuditEntry>): AuditEntry[] {
  const rewritten = entries.slice(0, from - 1);
  for (const entry of entries.slice(from - 1)) {
    const unhashed = { ...entry, ...(entry.seq === from ? change : {}), previousHash: rewritten.at(-1)?.hash ?? GENESIS_HASH };
    rewritten.push({ ...unhashed, hash: entryHash(unhashed) });
  }
  return rewritten;
}

describe('the chain', () => {
  it('numbers entries from 1, the first after the genesis hash, each naming the one before', () => {
    const entries = chain(3);
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3]);
    expect(entries[0]!.previousHash).toBe(GENESIS_HASH);
    expect(entries[2]!.previousHash).toBe(entries[1]!.hash);
    expect(entries[1]!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes the canonical form: any member changed is another hash', () => {
    const [first] = chain(1);
    expect(first!.hash).toBe(entryHash({ ...first! }));
    expect(entryHash({ ...first!, reason: 'x' })).not.toBe(first!.hash);
  });

  it('holds no secret, wherever it is quoted', () => {
    const entry = chainedEntry(
      { ...RECORD, action: 'db.sql', reason: 'near "mqk_abc"', changes: { statement: "SELECT 'mqk_AbC-12_x' , 'whsec_Zm9v', 'xmqa_q'", list: ['whsec_1'] } },
      undefined,
      new Date(),
    );
    expect(JSON.stringify(entry)).not.toMatch(/mqk_|mqa_|whsec_/);
    expect(entry.changes.statement).toBe("SELECT '[redacted secret]' , '[redacted secret]', 'x[redacted secret]'");
    expect(scrubSecrets({ n: 1, ok: true, none: null })).toEqual({ n: 1, ok: true, none: null });
  });
});

describe('verify', () => {
  it('passes an untouched trail and every head it kept', async () => {
    const entries = chain(5);
    expect(await verifyAuditTrail(each(entries), [head(entries[1]!), head(entries[4]!)])).toEqual({
      ok: true,
      entries: 5,
      head: { seq: 5, hash: entries[4]!.hash },
      headsChecked: 2,
      broken: null,
    });
  });

  it('names an entry edited in place', async () => {
    const entries = chain(5);
    entries[2] = { ...entries[2]!, actor: 'someone-else' };
    expect((await verifyAuditTrail(each(entries), [])).broken).toMatchObject({ kind: 'changed', seq: 3, problem: expect.stringContaining('entry 3 was changed') });
  });

  it('names an entry removed from the middle, and the first one', async () => {
    const entries = chain(5);
    expect((await verifyAuditTrail(each(entries.filter((entry) => entry.seq !== 3)), [])).broken).toEqual({
      kind: 'missing',
      seq: 3,
      last: 3,
      problem: 'entry 3 missing: entry 4 follows entry 2',
    });
    expect((await verifyAuditTrail(each(entries.slice(2)), [])).broken).toEqual({
      kind: 'missing',
      seq: 1,
      last: 2,
      problem: 'entries 1..2 missing: entry 3 follows the start of the trail',
    });
  });

  it('names the newest entries removed and the next appended after them: its number is not theirs, so a gap that links is still entries missing, not an edit', async () => {
    const entries = chain(5);
    // Entries 4 and 5 deleted; the trail's counter hands out 6 next, after the head (entry 3).
    const next = chainedEntry({ ...RECORD, targetId: 'key_after' }, entries[2], new Date(Date.UTC(2026, 10, 26, 11)), 6);
    expect(next).toMatchObject({ seq: 6, previousHash: entries[2]!.hash });
    const verdict = await verifyAuditTrail(each([...entries.slice(0, 3), next]), []);
    expect(verdict).toMatchObject({ ok: false, entries: 4, head: { seq: 3 } });
    expect(verdict.broken).toEqual({ kind: 'missing', seq: 4, last: 5, problem: 'entries 4..5 missing: entry 6 follows entry 3' });
  });

  it('names the link an entry rewritten with its own hash recomputed breaks', async () => {
    const entries = chain(5);
    const unhashed = { ...entries[1]!, actor: 'someone-else' };
    entries[1] = { ...unhashed, hash: entryHash(unhashed) };
    expect((await verifyAuditTrail(each(entries), [])).broken).toMatchObject({ kind: 'relinked', seq: 3, problem: expect.stringContaining('does not follow entry 2') });
  });

  it('catches a consistent rewrite only against a head kept in the store', async () => {
    const entries = chain(6);
    const rewritten = rewrite(entries, 2, { actor: 'someone-else' });
    expect((await verifyAuditTrail(each(rewritten), [])).ok).toBe(true);
    const verdict = await verifyAuditTrail(each(rewritten), [head(entries[0]!), head(entries[3]!), head(entries[5]!)]);
    expect(verdict.broken).toMatchObject({
      kind: 'rewritten',
      seq: 4,
      problem: expect.stringMatching(/entry 4 is not the one the snapshot store kept .*after entry 1 and at or before entry 4/),
    });
  });

  it('catches entries removed from the end against a later head', async () => {
    const entries = chain(6);
    const verdict = await verifyAuditTrail(each(entries.slice(0, 4)), [head(entries[5]!)]);
    expect(verdict.broken).toMatchObject({
      kind: 'missing',
      seq: 5,
      last: 6,
      problem: expect.stringMatching(/^entries 5\.\.6 missing: the trail ends at entry 4, but the snapshot store kept a head at entry 6 /),
    });
    // One removed from the end, with no head kept after it yet: the store cannot know.
    expect((await verifyAuditTrail(each(entries.slice(0, 5)), [head(entries[3]!)])).ok).toBe(true);
  });
});

describe("the readers' window", () => {
  const now = new Date('2026-11-26T12:00:00Z');
  const names = { since: '--since', until: '--until' };

  it('reads both ends as instants or durations back, either one alone', () => {
    expect(auditWindow({ since: '2026-11-01T00:00:00Z', until: '24h' }, names, now)).toEqual({ since: new Date('2026-11-01T00:00:00Z'), until: new Date('2026-11-25T12:00:00Z') });
    expect(auditWindow({ until: '2026-11-02T00:00:00+01:00' }, names, now)).toEqual({ until: new Date('2026-11-01T23:00:00Z') });
    expect(auditWindow({}, names, now)).toEqual({});
  });

  it('refuses an until at or before since, and a value that is neither, naming the option', () => {
    expect(() => auditWindow({ since: '1h', until: '7d' }, names, now)).toThrow(/^--until "7d" \(2026-11-19T12:00:00.000Z\) is not after --since "1h"/);
    expect(() => auditWindow({ since: '2026-11-01T00:00:00Z', until: '2026-11-01T00:00:00Z' }, names, now)).toThrow(OperatorError);
    expect(() => auditWindow({ until: 'tomorrow' }, { since: 'since', until: 'until' }, now)).toThrow(/^until "tomorrow" is neither/);
  });
});

describe('the admin API routes', () => {
  it('declare the action of every state-changing route, and of no read', () => {
    for (const route of ADMIN_ROUTES) expect(route.action === undefined, `${route.method} ${route.path}`).toBe(route.method === 'get');
  });
});
