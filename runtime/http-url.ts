// Whether a setting is an absolute http(s) URL: the base URLs operators configure (S3_ENDPOINT,
// SNAPSHOT_CDN_URL, PLATFORM_PUBLIC_URL) are checked with this at start-up.
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
