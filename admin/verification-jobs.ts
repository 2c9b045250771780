// The verifications of every organization that the admin port runs in its background
// (POST /admin/v1/verifications, the console's Verifications page): at 10,000 organizations one
// takes minutes, longer than a request should be held open, so the request starts it and answers at
// once, and its state is read while it runs. One at a time per process: a second request while
// one runs is answered with the running one (it verifies the same store against the same
// database; its `startedAt` says when). Kept in memory, the newest few: a restart forgets them,
// as it forgets the build runs this process keeps; the audit trail keeps who asked, and when.
import { randomUUID } from 'node:crypto';
import type { ReportedVerification, VerificationSummary } from '../builder/history/verification-report.ts';
import { describeError } from '../runtime/errors.ts';

/** How many finished verifications are kept, beside the running one. */
const VERIFICATIONS_KEPT = 20;

/** What a finished verification found: the summary, and each broken organization with its first break. */
interface VerificationResult {
  ok: boolean;
  store: string;
  against: string;
  summary: VerificationSummary;
  /** Broken organizations only, in id order: those that hold are counted in `summary`. */
  broken: ReportedVerification[];
}

export interface VerificationJob {
  id: string;
  /** running, then finished (whatever it found) or failed (it could not verify: the store unreadable or empty, the database down). */
  state: 'running' | 'finished' | 'failed';
  /** The actor who asked for it. */
  requestedBy: string;
  startedAt: string;
  finishedAt: string | null;
  /** Organizations verified so far, of `total` (0 until the store's organizations are listed). */
  done: number;
  total: number;
  result: VerificationResult | null;
  /** Why it failed. */
  error?: string;
}

/** Tells the job its progress while it runs. */
type JobProgress = (done: number, total: number) => void;

export interface VerificationJobs {
  /** Starts `work` unless one runs: then the running one. Answers at once with the job as it is. */
  start(requestedBy: string, work: (progress: JobProgress) => Promise<VerificationResult>): VerificationJob;
  get(id: string): VerificationJob | undefined;
  /** Newest first. */
  list(): VerificationJob[];
}

export function verificationJobs(options: { kept?: number; now?: () => Date } = {}): VerificationJobs {
  const kept = options.kept ?? VERIFICATIONS_KEPT;
  const now = options.now ?? (() => new Date());
  // Oldest first; the last one may be running.
  const jobs: VerificationJob[] = [];
  // Copies: a caller never sees (or changes) the job move under it.
  const view = (job: VerificationJob): VerificationJob => structuredClone(job);
  return {
    start(requestedBy, work) {
      const running = jobs.find((job) => job.state === 'running');
      if (running !== undefined) return view(running);
      const job: VerificationJob = { id: randomUUID(), state: 'running', requestedBy, startedAt: now().toISOString(), finishedAt: null, done: 0, total: 0, result: null };
      jobs.push(job);
      while (jobs.length > kept + 1) jobs.shift();
      const progress: JobProgress = (done, total) => {
        job.done = done;
        job.total = total;
      };
      // Not awaited: the request that started it is answered now. Whatever it ends with is kept on the job.
      void work(progress).then(
        (result) => {
          Object.assign(job, { state: 'finished', result, finishedAt: now().toISOString() });
        },
        (error: unknown) => {
          Object.assign(job, { state: 'failed', error: describeError(error), finishedAt: now().toISOString() });
        },
      );
      return view(job);
    },
    get: (id) => {
      const found = jobs.find((job) => job.id === id);
      return found === undefined ? undefined : view(found);
    },
    list: () => jobs.map(view).reverse(),
  };
}
