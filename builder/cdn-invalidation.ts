// CloudFront invalidation after a build: the CDN in front of the bucket is told to drop the
// pointers of the organizations whose pointer changed (BuildContext.onPointersChanged), in one
// CreateInvalidation per build. Objects and manifests are never invalidated: they never change.
import { randomUUID } from 'node:crypto';
import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import { pointerKey } from '../snapshot/layout.ts';
import type { BackendStates } from '../runtime/backend-states.ts';
import { describeError } from '../runtime/errors.ts';
import type { Log } from '../runtime/log.ts';
import { HTTP_HANDLER_OPTIONS, quietNodeVersionWarning } from '../snapshot/stores/aws-sdk.ts';

export interface CloudFrontInvalidatorOptions {
  distributionId: string;
  /** The store's prefix (SNAPSHOT_STORE=s3://bucket/prefix): the distribution serves key K at /prefix/K. '' for the bucket's root. */
  prefix: string;
  /** A client made elsewhere (tests); by default one for CloudFront's global endpoint, credentials from the SDK's chain. */
  client?: CloudFrontClient;
  log: Log;
  /** The process's backend states: each invalidation's outcome is the CDN's state (never probed: invalidations are billed per path). */
  states?: BackendStates;
}

/**
 * CloudFront accepts at most 3,000 paths in invalidations in progress per distribution. A build
 * that changed more pointers asks for one wildcard over every pointer's folder instead (wildcard
 * paths have their own, separate allowance); it also matches objects and manifests, which is
 * harmless: they never change, so the CDN fetches the same bytes again.
 */
const MAX_PATHS = 3_000;
const ATTEMPTS = 4;
const FIRST_BACKOFF_MS = 1_000;

/**
 * Returns the function to give BuildContext.onPointersChanged. It never rejects: an invalidation
 * that fails after its retries is a warning in the log, not a failed build. Pointers are written
 * with Cache-Control: no-cache, so a cache (with the distribution's minimum TTL at 0, as it must
 * be) revalidates a pointer with the bucket before each use anyway; the invalidation only makes
 * sure no edge keeps a stale one.
 */
export function createCloudFrontInvalidator(options: CloudFrontInvalidatorOptions): (organizationIds: string[]) => Promise<void> {
  const client = options.client ?? defaultClient();
  return async (organizationIds) => {
    const paths = invalidationPaths(options.prefix, organizationIds);
    if (paths.length === 0) return;
    const command = new CreateInvalidationCommand({
      DistributionId: options.distributionId,
      // One reference per call, the same for its retries: CloudFront takes a repeated request with
      // the reference of one it already has as that one, so a retry after a lost answer creates no
      // second invalidation.
      InvalidationBatch: { CallerReference: `marquee-${randomUUID()}`, Paths: { Quantity: paths.length, Items: paths } },
    });
    const fields = { distributionId: options.distributionId, organizations: organizationIds.length, paths: paths.length };
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await client.send(command);
        options.log.info('CDN invalidation requested', { ...fields, invalidationId: answer.Invalidation?.Id });
        options.states?.answered('cdn');
        return;
      } catch (error) {
        if (attempt >= ATTEMPTS || !isWorthRetrying(error)) {
          options.log.warn('CDN invalidation failed; pointers are no-cache, so caches revalidate them anyway', { ...fields, attempts: attempt, err: error });
          options.states?.failed('cdn', describeError(error));
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, backoff(attempt)));
      }
    }
  };
}

/** The URL paths of the organizations' pointers below the distribution's root, or one wildcard over them all. */
function invalidationPaths(prefix: string, organizationIds: readonly string[]): string[] {
  const root = prefix
    .split('/')
    .filter((segment) => segment !== '')
    .map(encodeURIComponent)
    .join('/');
  const base = root === '' ? '' : `/${root}`;
  const ids = [...new Set(organizationIds)];
  if (ids.length > MAX_PATHS) return [`${base}/orgs/*`];
  return ids.map((id) => `${base}/${pointerKey(id).split('/').map(encodeURIComponent).join('/')}`);
}

/**
 * Throttling, invalidations still in progress (their allowance frees as they complete), 5xx,
 * network errors and timeouts (no answer, so no status). Not: access denied, no such
 * distribution, missing credentials; those wait for an operator.
 */
function isWorthRetrying(error: unknown): boolean {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = $metadata?.httpStatusCode;
  if (name !== undefined && RETRIED_ERRORS.has(name)) return true;
  if (status === undefined) return name !== 'CredentialsProviderError';
  return status === 429 || status >= 500;
}

const RETRIED_ERRORS = new Set(['TooManyInvalidationsInProgress', 'Throttling', 'ThrottlingException', 'TooManyRequestsException', 'RequestLimitExceeded']);

/** Exponential with full jitter: 0–1 s, 0–2 s, 0–4 s; callers retrying together spread out. */
function backoff(attempt: number): number {
  return Math.random() * FIRST_BACKOFF_MS * 2 ** (attempt - 1);
}

function defaultClient(): CloudFrontClient {
  quietNodeVersionWarning();
  // CloudFront is global: its API lives in us-east-1. The retries are this module's (above), so the SDK makes one attempt.
  return new CloudFrontClient({ region: 'us-east-1', maxAttempts: 1, requestHandler: HTTP_HANDLER_OPTIONS });
}
