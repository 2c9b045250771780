// The auditors' checks in the console (issue 35: every check with an auditor credential): an
// organization's history verified (its history page's "Verify history"), and the Verifications
// page, which starts a verification of every organization in this process's background and shows
// each one's progress and result. Every page is an auditor's, and so is the one form: starting a
// verification changes nothing of the platform (admin/verification-admin.ts).
import { describeVerification } from '../../builder/history/verify-history.ts';
import { summaryText } from '../../builder/history/verification-report.ts';
import { adminRoute } from '../api-routes.ts';
import type { AdminServices } from '../services.ts';
import type { VerificationJob } from '../verification-jobs.ts';
import { form } from './console-forms.ts';
import { type ConsoleRoute, page } from './console-routes.ts';
import type { Pages } from './pages.ts';
import { showInstant } from './relative-time.ts';

/** While a verification runs, its pages reload themselves this often (no script needed). */
const REFRESH_SECONDS = 2;

function jobView(job: VerificationJob, now: Date) {
  return {
    ...job,
    shortId: job.id.slice(0, 8),
    startedAt: showInstant(job.startedAt, now),
    finishedAt: showInstant(job.finishedAt, now),
    summaryText: job.result === null ? null : summaryText(job.result.summary),
    // describeVerification reads `verified` for nothing: a broken organization says its break.
    brokenLines: (job.result?.broken ?? []).map((organization) => ({ ...organization, line: describeVerification({ ...organization, verified: [] }) })),
  };
}

const running = (job: VerificationJob) => job.state === 'running';

export function verificationPages({ services, pages, now }: { services: AdminServices; pages: Pages; now: () => Date }): ConsoleRoute[] {
  return [
    page('/organizations/:organization/verify', 'auditor', async (req, res) => {
      // By id or slug; an id the platform no longer knows is verified from the store, as the API does.
      const report = await services.verifications.organization(req.params.organization);
      const [verification] = report.organizations;
      const id = verification?.organizationId ?? req.params.organization;
      const organization = (await services.organizations.list()).find((org) => org.id === id) ?? { id, slug: id, name: id };
      pages.show(
        req,
        res,
        'organization-verify.njk',
        `History of ${organization.name} verified`,
        { organization, report, verification, line: verification === undefined ? '' : describeVerification({ ...verification, verified: [] }) },
        { section: 'organizations' },
      );
    }),

    page('/verifications', 'auditor', async (req, res) => {
      const at = now();
      const jobs = await services.verifications.list();
      pages.show(
        req,
        res,
        'verifications.njk',
        'Verifications',
        { jobs: jobs.map((job) => jobView(job, at)) },
        { section: 'verifications', ...(jobs.some(running) ? { refreshSeconds: REFRESH_SECONDS } : {}) },
      );
    }),

    form(adminRoute('startVerification'), {
      path: '/verifications',
      answer: async (req, res) => {
        const job = await services.verifications.start();
        res.redirect(303, `${req.baseUrl}/verifications/${encodeURIComponent(job.id)}`);
      },
    }),

    page('/verifications/:verificationId', 'auditor', async (req, res) => {
      const job = await services.verifications.get(req.params.verificationId);
      pages.show(
        req,
        res,
        'verification.njk',
        `Verification ${job.id.slice(0, 8)}`,
        { job: jobView(job, now()) },
        { section: 'verifications', ...(running(job) ? { refreshSeconds: REFRESH_SECONDS } : {}) },
      );
    }),
  ];
}
