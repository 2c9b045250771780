import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLog } from '../../../bin/log.ts';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { stream, lines: () => text.split('\n').filter((line) => line !== '') };
}

describe('the process log (bin/log.ts)', () => {
  it('writes one JSON line per entry: level, time, the component, the fields, the message', async () => {
    const out = capture();
    const log = (await createLog({ format: 'json', destination: out.stream })).child({ component: 'builder' });
    log.warn('nordic-dev: build failed: resource /team fails schema team', { trigger: 'change', organizationId: 'o-1', resource: '/team' });
    log.info('built 1 organizations');
    const [first, second] = out.lines().map((line) => JSON.parse(line));
    expect(first).toEqual({
      level: 'warn',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      component: 'builder',
      trigger: 'change',
      organizationId: 'o-1',
      resource: '/team',
      message: 'nordic-dev: build failed: resource /team fails schema team',
    });
    expect(second).toMatchObject({ level: 'info', message: 'built 1 organizations' });
    expect(out.lines()).toHaveLength(2);
  });

  it('writes an error with every cause and its stack, on one line', async () => {
    const out = capture();
    const log = await createLog({ format: 'json', destination: out.stream });
    log.error('request failed', { path: '/api/integration/v1/team', err: new Error('manifest unreadable', { cause: new Error('EIO: i/o error') }) });
    const [line] = out.lines().map((text) => JSON.parse(text));
    expect(line.err).toMatchObject({ type: 'Error', message: 'manifest unreadable: EIO: i/o error', stack: expect.stringContaining('caused by: Error: EIO: i/o error') });
  });

  it('never writes a field that could hold a secret', async () => {
    const out = capture();
    const log = await createLog({ format: 'json', destination: out.stream });
    log.info('oops', { key: 'mqk_secret', request: { authorization: 'Bearer mqk_secret' } });
    expect(out.lines()[0]).not.toContain('mqk_secret');
    expect(JSON.parse(out.lines()[0]!)).toMatchObject({ key: '[redacted]', request: { authorization: '[redacted]' } });
  });

  it('writes readable lines when asked for pretty', async () => {
    const out = capture();
    const log = (await createLog({ format: 'pretty', destination: out.stream })).child({ component: 'gateway' });
    log.info('gateway listening on http://127.0.0.1:8080, serving snapshots from /srv/snapshots', { url: 'http://127.0.0.1:8080' });
    expect(out.lines()).toEqual([
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: gateway: gateway listening on http:\/\/127\.0\.0\.1:8080, serving snapshots from \/srv\/snapshots \{"url":"http:\/\/127\.0\.0\.1:8080"\}$/,
      ),
    ]);
  });
});
