// Origin matching (docs/design.md decisions table): table of decisions, then properties.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileOrigins, normalizeAllowedOrigin, parseOrigin } from '../../../../records/keys/origins.ts';
import { OriginMatcherCache } from '../../../../gateway/access/origin-matchers.ts';

describe('normalizeAllowedOrigin', () => {
  it.each([
    ['https://example.org', 'https://example.org'],
    ['HTTPS://Example.ORG', 'https://example.org'],
    ['https://example.org:443', 'https://example.org'],
    ['http://example.org:80', 'http://example.org'],
    ['http://example.org:443', 'http://example.org:443'],
    ['https://example.org:8443', 'https://example.org:8443'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['https://[::1]:8443', 'https://[::1]:8443'],
    ['https://bücher.de', 'https://xn--bcher-kva.de'],
    ['https://*.Example.org', 'https://*.example.org'],
    ['https://*.example.org:443', 'https://*.example.org'],
    ['http://*.example.org:8080', 'http://*.example.org:8080'],
  ])('%s → %s', (text, origin) => {
    expect(normalizeAllowedOrigin(text)).toEqual({ ok: true, origin });
  });

  it.each([
    'null',
    '',
    'example.org',
    'https://',
    'https://example.org/',
    'https://example.org/path',
    'https://example.org?q=1',
    'https://example.org#top',
    'https://user@example.org',
    'ftp://example.org',
    'file:///etc/passwd',
    'https://example.org:99999',
    ' https://example.org',
    'https://exa mple.org',
    'https://*.org',
    'https://*',
    'https://*.*.example.org',
    'https://a.*.example.org',
    'https://ex*ample.org',
    'https://*.10.0.0.1',
  ])('refuses %j, naming it', (text) => {
    const parsed = normalizeAllowedOrigin(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(`"${text}"`);
  });
});

describe('compileOrigins', () => {
  const matcher = compileOrigins(['https://example.org', 'http://localhost:3000', 'https://*.example.net', 'https://*.example.com:8443']);

  it.each([
    ['https://example.org', true],
    ['https://EXAMPLE.org', true],
    ['https://example.org:443', true],
    ['http://example.org', false],
    ['https://example.org:8443', false],
    ['https://www.example.org', false],
    ['https://example.org.evil.com', false],
    ['http://localhost:3000', true],
    ['http://localhost:3001', false],
    ['http://localhost', false],
    ['https://a.example.net', true],
    ['https://a.b.example.net', true],
    ['https://A.Example.NET', true],
    ['https://example.net', false],
    ['https://aexample.net', false],
    ['http://a.example.net', false],
    ['https://a.example.net:8443', false],
    ['https://a.example.com:8443', true],
    ['https://a.example.com', false],
    ['null', false],
    ['', false],
    ['https://example.org/', false],
    ['https://evil.com/.example.net', false],
  ])('%j → %s', (origin, allowed) => {
    expect(matcher.allows(origin)).toBe(allowed);
  });

  it('allows no browser origin at all for an empty list (server-side keys)', () => {
    const serverSide = compileOrigins([]);
    expect(serverSide.allows('https://example.org')).toBe(false);
    expect(serverSide.allows('null')).toBe(false);
  });

  const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
  // A numeric last label would make the URL parser read the host as IPv4.
  const topLevel = fc.stringMatching(/^[a-z]{2,6}$/);
  const domain = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), topLevel).map(([labels, tld]) => [...labels, tld].join('.'));
  const scheme = fc.constantFrom('http', 'https');
  const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
  const origin = fc.record({ scheme, host: domain, port }).map(({ scheme, host, port }) => `${scheme}://${host}${port === undefined ? '' : `:${port}`}`);

  it('property: an exact entry allows itself in any letter case and with its default port spelled out', () => {
    fc.assert(
      fc.property(scheme, domain, (s, host) => {
        const matcher = compileOrigins([`${s}://${host}`]);
        expect(matcher.allows(`${s}://${host}`)).toBe(true);
        expect(matcher.allows(`${s.toUpperCase()}://${host.toUpperCase()}`)).toBe(true);
        expect(matcher.allows(`${s}://${host}:${s === 'https' ? 443 : 80}`)).toBe(true);
      }),
    );
  });

  it('property: an exact entry allows only origins that normalize to it', () => {
    fc.assert(
      fc.property(origin, origin, (entry, candidate) => {
        const expected = parseOrigin(entry).ok && parseOrigin(candidate).ok && new URL(entry).origin === new URL(candidate).origin;
        expect(compileOrigins([entry]).allows(candidate)).toBe(expected);
      }),
    );
  });

  it('property: a wildcard allows every subdomain at any depth, never the domain itself', () => {
    fc.assert(
      fc.property(domain, fc.array(label, { minLength: 1, maxLength: 3 }), (base, sub) => {
        const matcher = compileOrigins([`https://*.${base}`]);
        expect(matcher.allows(`https://${sub.join('.')}.${base}`)).toBe(true);
        expect(matcher.allows(`https://${base}`)).toBe(false);
        expect(matcher.allows(`http://${sub.join('.')}.${base}`)).toBe(false);
        expect(matcher.allows(`https://${sub.join('')}${base}`)).toBe(false);
      }),
    );
  });

  it('property: arbitrary header values never throw, and only well-formed origins on the list match', () => {
    const matcher = compileOrigins(['https://example.org', 'https://*.example.net']);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((rest) => `https://${rest}`),
          fc.string().map((rest) => `https://${rest}.example.net`),
        ),
        (text) => {
          if (!matcher.allows(text)) return;
          const parsed = parseOrigin(text);
          expect(parsed.ok).toBe(true);
          if (parsed.ok) expect(parsed.origin === 'https://example.org' || /^https:\/\/[a-z0-9_.-]+\.example\.net$/.test(parsed.origin)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('OriginMatcherCache', () => {
  it('compiles once per key and list, and again when the list changes', () => {
    const cache = new OriginMatcherCache();
    const first = cache.matcherFor('key_a', ['https://a.example']);
    expect(cache.matcherFor('key_a', ['https://a.example'])).toBe(first);
    const changed = cache.matcherFor('key_a', ['https://b.example']);
    expect(changed).not.toBe(first);
    expect(changed.allows('https://a.example')).toBe(false);
    expect(changed.allows('https://b.example')).toBe(true);
  });

  it('stays within its bytes, forgetting the least recently used key first', () => {
    // One key with one origin of 17 characters weighs 500 + 5 + 150 + 3 × 17 = 706 bytes: room for two.
    const cache = new OriginMatcherCache(1_500);
    const list = ['https://a.example'];
    const a = cache.matcherFor('key_a', list);
    const b = cache.matcherFor('key_b', list);
    expect(cache.matcherFor('key_a', list)).toBe(a);
    cache.matcherFor('key_c', list);
    expect(cache.stats).toMatchObject({ weight: 2 * 706, evictions: 1 });
    expect(cache.matcherFor('key_a', list)).toBe(a);
    expect(cache.matcherFor('key_b', list)).not.toBe(b);
  });
});
