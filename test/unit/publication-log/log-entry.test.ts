// The publication log's leaves: each kind's exact bytes, read back member by member, and every other
// spelling or member refused, so that one entry has one leaf hash.
import { describe, expect, it } from 'vitest';
import { leafBytes, type LogEntry, type LogRecord, logEntry, organizationOf, parseLeaf, storeKeyOf } from '../../../records/publication-log/log-entry.ts';

const ORG = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const HASH = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const AT = new Date('2026-11-26T10:00:00.123Z');

describe('a log entry', () => {
  it('is the canonical JSON of exactly its members, for each kind', () => {
    const cases: Array<[LogRecord, string]> = [
      [
        { kind: 'manifest', organizationId: ORG, id: '20261126T100000000Z-0123456789ab', hash: HASH },
        `{"at":"2026-11-26T10:00:00.123Z","hash":"${HASH}","id":"20261126T100000000Z-0123456789ab","kind":"manifest","organizationId":"${ORG}"}`,
      ],
      [
        { kind: 'state-record', organizationId: ORG, id: '20261126T100000000Z-suspended', hash: HASH },
        `{"at":"2026-11-26T10:00:00.123Z","hash":"${HASH}","id":"20261126T100000000Z-suspended","kind":"state-record","organizationId":"${ORG}"}`,
      ],
      [
        { kind: 'removal', organizationId: ORG, removed: 'manifest', reason: 'retention', id: '20261001T100000000Z-0123456789ab', hash: HASH },
        `{"at":"2026-11-26T10:00:00.123Z","hash":"${HASH}","id":"20261001T100000000Z-0123456789ab","kind":"removal","organizationId":"${ORG}","reason":"retention","removed":"manifest"}`,
      ],
      [
        { kind: 'removal', organizationId: ORG, removed: 'manifest', reason: 'withdrawn', id: '20261001T100000000Z-0123456789ab', hash: HASH },
        `{"at":"2026-11-26T10:00:00.123Z","hash":"${HASH}","id":"20261001T100000000Z-0123456789ab","kind":"removal","organizationId":"${ORG}","reason":"withdrawn","removed":"manifest"}`,
      ],
      [{ kind: 'trail-head', id: '4711', hash: HASH }, `{"at":"2026-11-26T10:00:00.123Z","hash":"${HASH}","id":"4711","kind":"trail-head"}`],
    ];
    for (const [record, bytes] of cases) {
      const entry = logEntry(record, AT);
      expect(leafBytes(entry).toString('utf8')).toBe(bytes);
      expect(parseLeaf(Buffer.from(bytes))).toEqual(entry);
    }
  });

  it('names the object it logs and its organization', () => {
    const manifest = logEntry({ kind: 'manifest', organizationId: ORG, id: '20261126T100000000Z-0123456789ab', hash: HASH }, AT);
    expect(storeKeyOf(manifest)).toBe(`orgs/${ORG}/snapshots/20261126T100000000Z-0123456789ab.json`);
    const removal = logEntry({ kind: 'removal', organizationId: ORG, removed: 'state-record', reason: 'retention', id: '20261126T100000000Z-closed', hash: HASH }, AT);
    expect(storeKeyOf(removal)).toBe(`orgs/${ORG}/states/20261126T100000000Z-closed.json`);
    const head = logEntry({ kind: 'trail-head', id: '1', hash: HASH }, AT);
    expect(storeKeyOf(head)).toBeUndefined();
    expect(organizationOf(head)).toBeNull();
    expect(organizationOf(manifest)).toBe(ORG);
  });

  it('refuses a record that is not as documented', () => {
    const manifest = { kind: 'manifest', organizationId: ORG, id: '20261126T100000000Z-0123456789ab', hash: HASH } as const;
    const refused: Array<[unknown, RegExp]> = [
      [{ ...manifest, kind: 'object' }, /kind must be/],
      [{ ...manifest, hash: HASH.toUpperCase() }, /hash/],
      [{ ...manifest, id: '20261126T100000000Z-suspended' }, /snapshot id/],
      [{ ...manifest, organizationId: 'a/b' }, /organizationId/],
      [{ ...manifest, extra: 1 }, /exactly the members/],
      [{ kind: 'trail-head', organizationId: ORG, id: '1', hash: HASH }, /exactly the members/],
      [{ kind: 'trail-head', id: '0', hash: HASH }, /seq/],
      [{ kind: 'state-record', organizationId: ORG, id: '20261126T100000000Z-paused', hash: HASH }, /state record/],
      [{ kind: 'removal', organizationId: ORG, removed: 'object', reason: 'retention', id: 'x', hash: HASH }, /removed must be/],
      [{ kind: 'removal', organizationId: ORG, removed: 'manifest', reason: 'expired', id: '20261001T100000000Z-0123456789ab', hash: HASH }, /reason must be/],
      [{ kind: 'removal', organizationId: ORG, removed: 'manifest', id: '20261001T100000000Z-0123456789ab', hash: HASH }, /exactly the members/],
    ];
    for (const [record, problem] of refused) expect(() => logEntry(record as LogRecord, AT)).toThrow(problem);
  });

  it('reads only the one spelling of a leaf', () => {
    const entry: LogEntry = logEntry({ kind: 'trail-head', id: '12', hash: HASH }, AT);
    const bytes = leafBytes(entry).toString('utf8');
    expect(parseLeaf(Buffer.from(bytes.replace(',', ', ')))).toBe('not in canonical form');
    expect(parseLeaf(Buffer.from(JSON.stringify({ kind: entry.kind, id: entry.id, hash: entry.hash, at: entry.at })))).toBe('not in canonical form');
    expect(parseLeaf(Buffer.from(bytes.replace('"12"', '12')))).toMatch(/seq/);
    expect(parseLeaf(Buffer.from(bytes.replace('.123Z', 'Z')))).toMatch(/at must be/);
    expect(parseLeaf(Buffer.from('[]'))).toBe('not a JSON object');
    expect(parseLeaf(Buffer.from('{'))).toBe('not JSON');
  });
});
