// The auditors' pages of organizations: the list, a page at a time and searchable, with each
// one's current snapshot and last build, an organization's history, the side-by-side diff of two
// snapshots, and the as-of view.
import { parseZonedInstant } from '../../runtime/instant.ts';
import type { AnsweringManifest, ManifestInclusion } from '../../records/publication-log/answer-inclusion.ts';
import { inclusionPath } from '../api-routes.ts';
import type { OrganizationPage } from '../organization-admin.ts';
import type { AdminServices } from '../services.ts';
import { type ConsoleRoute, page } from './console-routes.ts';
import { diffView } from './diff-view.ts';
import { historyRows } from './history-view.ts';
import type { Pages } from './pages.ts';
import { showInstant } from './relative-time.ts';

/** Organizations a page: what a person reads before searching instead, and what a page costs at any fleet size (docs/performance.md). */
const PAGE_SIZE = 50;
/** As long as the longest slug the admin API accepts: no organization is found by more. */
const SEARCH_MAX_LENGTH = 200;

export function organizationPages({ services, pages, now }: { services: AdminServices; pages: Pages; now: () => Date }): ConsoleRoute[] {
  /** The organization's overview row (for its name); the lookup names an unknown one as a 404. */
  const overview = (name: string) => services.organizations.overview(name);

  return [
    page('/', 'auditor', (req, res) => res.redirect(302, `${req.baseUrl}/organizations`)),

    page('/organizations', 'auditor', async (req, res) => {
      const search = queryText(req.query.search).slice(0, SEARCH_MAX_LENGTH);
      // A page is asked for by one of its ends; `after` wins a link edited to carry both.
      const after = queryText(req.query.after);
      const before = after === '' ? queryText(req.query.before) : '';
      const found = await services.organizations.page({
        limit: PAGE_SIZE,
        ...(search !== '' ? { search } : {}),
        ...(after !== '' ? { after } : {}),
        ...(before !== '' ? { before } : {}),
      });
      const at = now();
      const organizations = found.organizations.map((org) => ({
        ...org,
        publishedAt: showInstant(org.publishedAt, at),
        lastBuild: org.lastBuild ? { ...org.lastBuild, finishedAt: showInstant(org.lastBuild.finishedAt, at) } : null,
      }));
      const link = (edge: Record<string, string>) => `${req.baseUrl}/organizations?${new URLSearchParams({ ...(search !== '' ? { search } : {}), ...edge })}`;
      const pagesBeside = {
        // Back to the start from deep in the list, as a keyset cannot count its way there.
        first: found.previous !== null || after !== '' || before !== '' ? link({}) : null,
        previous: found.previous === null ? null : link({ before: found.previous }),
        next: found.next === null ? null : link({ after: found.next }),
      };
      pages.show(
        req,
        res,
        'organizations.njk',
        'Organizations',
        { organizations, search, searchMaxLength: SEARCH_MAX_LENGTH, summary: summary(found, search), total: found.total, pages: pagesBeside },
        { section: 'organizations' },
      );
    }),

    page('/organizations/:organization/history', 'auditor', async (req, res) => {
      const organization = await overview(req.params.organization);
      const at = now();
      const { rows, currentId } = historyRows(await services.snapshots.history(organization.id), at);
      pages.show(
        req,
        res,
        'history.njk',
        `History of ${organization.name}`,
        { organization, entries: rows, currentId, defaultInstant: at.toISOString() },
        { section: 'organizations' },
      );
    }),

    page('/organizations/:organization/keys', 'auditor', (req, res) => res.redirect(302, `${req.baseUrl}/keys?organization=${encodeURIComponent(req.params.organization)}`)),

    page('/organizations/:organization/diff', 'auditor', async (req, res) => {
      const organization = await overview(req.params.organization);
      const [from, to] = [queryText(req.query.from) || 'current', queryText(req.query.to) || 'current'];
      const diff = await services.snapshots.diff(organization.id, from, to);
      const view = diffView(diff);
      pages.show(req, res, 'diff.njk', `Changes in ${organization.name}`, { organization, from, to, view }, { section: 'organizations' });
    }),

    page('/as-of', 'auditor', async (req, res) => {
      const values = { organization: queryText(req.query.organization), at: queryText(req.query.at), path: queryText(req.query.path) || '/organization' };
      const organizations = await services.organizations.list();
      const show = (context: Record<string, unknown>, status = 200) =>
        pages.show(req, res, 'as-of.njk', 'As of an instant', { organizations, values, ...context }, { section: 'as-of', status });
      if (values.organization === '' || values.at === '') return show({});
      const at = parseZonedInstant(values.at);
      if (at === undefined) return show({ error: `${values.at} is not an ISO 8601 instant with a zone` }, 400);
      const answer = await services.snapshots.asOf(values.organization, at, values.path);
      // The evidence behind the answer, and what changed since: the snapshot then against the current
      // one; and where its manifest is in the publication log, with the proof as the admin API answers it.
      const inclusion = answer.snapshotId === null ? undefined : inclusionLine(values.organization, await services.snapshots.inclusion(values.organization, answer.snapshotId));
      show({ answer: { status: answer.status, body: JSON.stringify(answer.body, null, 2), snapshotId: answer.snapshotId, ...answer.evidence }, inclusion });
    }),
  ];
}

/** The as-of page's publication-log line: the leaf and the checkpoint's size its proof is of, and the proof's address; or why there is none. */
function inclusionLine(
  organization: string,
  { snapshotId, ...found }: AnsweringManifest & ManifestInclusion,
): { leaf: number; treeSize: number; href: string } | { reason: string } {
  if (found.inclusion === null) return { reason: found.inclusionReason };
  return { leaf: found.inclusion.proof.leafIndex, treeSize: found.inclusion.proof.treeSize, href: inclusionPath(organization, snapshotId) };
}

/** How many there are, or how many the search found, and how they are paged. */
function summary({ total }: OrganizationPage, search: string): string {
  const count = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'organization' : 'organizations'}`;
  if (total === null) return `More than ${count(PAGE_SIZE)} match “${search}”, ${PAGE_SIZE} a page, by slug.`;
  const paged = total > PAGE_SIZE ? `, ${PAGE_SIZE} a page, by slug` : '';
  if (search === '') return `${count(total)}${paged}.`;
  return `${count(total)} ${total === 1 ? 'matches' : 'match'} “${search}”.`;
}

function queryText(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}
