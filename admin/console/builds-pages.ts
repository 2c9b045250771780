// The builds pages: recent runs with their progress, one run's results per organization, and the
// forms that start a build of everything or of one organization.
import type { BuildRun } from '../../builder/runs/build-runs.ts';
import { adminRoute } from '../api-routes.ts';
import type { AdminServices } from '../services.ts';
import { form } from './console-forms.ts';
import { type ConsoleRoute, page } from './console-routes.ts';
import { formField, type Pages } from './pages.ts';
import { showInstant } from './relative-time.ts';

/** While a run is queued or running, its pages reload themselves this often (no script needed). */
const REFRESH_SECONDS = 2;

function runView(run: BuildRun, now: Date) {
  return {
    ...run,
    shortId: run.id.slice(0, 8),
    byBuilder: sharesOf(run),
    queuedAt: showInstant(run.queuedAt, now),
    startedAt: showInstant(run.startedAt, now),
    finishedAt: showInstant(run.finishedAt, now),
  };
}

/** How many organizations each builder has built in the run, most first: a divided run's progress by builder. */
function sharesOf(run: BuildRun): Array<{ builder: string; done: number }> {
  const counts = new Map<string, number>();
  for (const result of run.organizations) counts.set(result.builder, (counts.get(result.builder) ?? 0) + 1);
  return [...counts].map(([builder, done]) => ({ builder, done })).sort((a, b) => b.done - a.done || a.builder.localeCompare(b.builder));
}

const underWay = (run: BuildRun) => run.state === 'queued' || run.state === 'running';

export function buildPages({ services, pages, now }: { services: AdminServices; pages: Pages; now: () => Date }): ConsoleRoute[] {
  return [
    page('/builds', 'auditor', async (req, res) => {
      const runs = await services.builds.list();
      const organizations = await services.organizations.list();
      const at = now();
      pages.show(
        req,
        res,
        'builds.njk',
        'Builds',
        { runs: runs.map((run) => runView(run, at)), organizations },
        { section: 'builds', ...(runs.some(underWay) ? { refreshSeconds: REFRESH_SECONDS } : {}) },
      );
    }),

    form(adminRoute('startBuild'), {
      path: '/builds',
      // "Build all" sends no organization: every one, as the API's absent or empty list.
      body: (req) => {
        const organization = formField(req.body, 'organization').trim();
        return { organizations: organization === '' ? [] : [organization] };
      },
      answer: async (req, res, { organizations }) => {
        const run = await services.builds.start(organizations ?? []);
        res.redirect(303, `${req.baseUrl}/builds/${encodeURIComponent(run.id)}`);
      },
    }),

    page('/builds/:runId', 'auditor', async (req, res) => {
      const run = await services.builds.get(req.params.runId);
      if (!run) return pages.error(req, res, 404, 'Build not found', `No build run ${req.params.runId} among the runs kept.`);
      pages.show(
        req,
        res,
        'build.njk',
        `Build run ${run.id.slice(0, 8)}`,
        { run: runView(run, now()) },
        {
          section: 'builds',
          ...(underWay(run) ? { refreshSeconds: REFRESH_SECONDS } : {}),
        },
      );
    }),
  ];
}
