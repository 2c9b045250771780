import { describe, expect, it } from 'vitest';
import { OutageWarning } from '../../../../gateway/snapshot-cache/outage-warning.ts';
import { StoreUnavailableError } from '../../../../snapshot/store.ts';
import { RecordingLog } from '../../../support/recording-log.ts';

function setup() {
  const log = new RecordingLog();
  const time = { now: 0 };
  const warning = new OutageWarning(log, 'storage unreachable', 10_000, () => time.now);
  return { log, time, warning };
}

const outage = () => new StoreUnavailableError('orgs/a/objects/x.json could not be read', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });

describe('OutageWarning', () => {
  it('logs the first failure at once, as a warning with the reason and its causes and without the error (no stack)', () => {
    const { log, warning } = setup();
    warning.report(outage(), { path: '/x' });
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: 'storage unreachable',
        fields: { path: '/x', reason: 'orgs/a/objects/x.json could not be read: connect ECONNREFUSED 127.0.0.1:9' },
      },
    ]);
  });

  it('logs a flood of failures as one line per interval, saying how many it stands for', () => {
    const { log, time, warning } = setup();
    for (let i = 0; i < 1000; i++) warning.report(outage());
    expect(log.lines).toHaveLength(1);
    time.now = 9_999;
    warning.report(outage());
    expect(log.lines).toHaveLength(1);
    time.now = 10_000;
    warning.report(outage());
    expect(log.lines).toHaveLength(2);
    expect(log.lines[1]!.fields.failuresSinceLastLine).toBe(1000);
    time.now = 30_000;
    warning.report(outage());
    expect(log.lines).toHaveLength(3);
    expect(log.lines[2]!.fields).not.toHaveProperty('failuresSinceLastLine');
  });
});
