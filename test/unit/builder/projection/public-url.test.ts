// publicUrl: the platform's public pages (docs/platform.md "Public pages"), slugs URL-encoded.
import { describe, expect, it } from 'vitest';
import { eventPublicUrl, organizationPublicUrl } from '../../../../builder/projection/public-url.ts';

describe('publicUrl', () => {
  it('joins the base, the organization slug and the event slug', () => {
    expect(organizationPublicUrl('https://events.example.com', 'acme')).toBe('https://events.example.com/acme');
    expect(eventPublicUrl('https://events.example.com', 'acme', 'summit-2026')).toBe('https://events.example.com/acme/events/summit-2026');
  });

  it('tolerates trailing slashes on the base', () => {
    expect(organizationPublicUrl('https://events.example.com/', 'acme')).toBe('https://events.example.com/acme');
    expect(eventPublicUrl('https://events.example.com/platform//', 'acme', 'x')).toBe('https://events.example.com/platform/acme/events/x');
  });

  it('encodes both slugs', () => {
    expect(eventPublicUrl('https://e.example', 'a b/c', 'ü?#&')).toBe('https://e.example/a%20b%2Fc/events/%C3%BC%3F%23%26');
  });
});
