// The usage pages, for auditors and up: a key's and an organization's requests over a range (the
// last 7 days by hour unless the form says otherwise), with totals by outcome, the chart drawn on
// the server (usage-chart.ts), routes, refused origins, and for an organization its keys, each
// linking to its own page. A range the services refuse (it ends before it starts, it holds too
// many buckets) is said on the form, with what was typed.
import type { Request, Response } from 'express';
import type { UsageReport } from '../../records/usage/usage-report.ts';
import type { OrganizationOverview } from '../organization-admin.ts';
import type { AdminServices } from '../services.ts';
import { type UsageRangeRequest, UsageRangeError } from '../usage-admin.ts';
import { type ConsoleRoute, page } from './console-routes.ts';
import { type KeyItem, keyRow } from './keys-view.ts';
import type { Pages } from './pages.ts';
import { countText, usageChart } from './usage-chart.ts';
import { type RangeFields, rangePresets, rangeQuery, rangeSearch, reportFields, usageView } from './usage-view.ts';

/** What a page shows of a report read, or why there is none (the form's mistake). */
type Reading = { report: UsageReport; fields: RangeFields } | { error: string; fields: RangeFields };

export function usagePages({ services, pages, now }: { services: AdminServices; pages: Pages; now: () => Date }): ConsoleRoute[] {
  /** The report for the page's range, or the form's mistake: a bad instant here, a range the services refuse. */
  const read = async (query: Record<string, unknown>, reading: (range: UsageRangeRequest) => Promise<UsageReport>): Promise<Reading> => {
    const asked = rangeQuery(query);
    if ('error' in asked) return asked;
    try {
      const report = await reading(asked.request);
      return { report, fields: reportFields(report) };
    } catch (error) {
      if (error instanceof UsageRangeError) return { error: error.message, fields: asked.fields };
      throw error;
    }
  };

  /** Everything both pages show of a reading: the form, its presets, the report's tables and chart. */
  const shown = (reading: Reading, subject: string) => ({
    fields: reading.fields,
    presets: rangePresets(now()),
    ...('error' in reading
      ? { error: reading.error }
      : // The range goes along on the page's links to other usage pages, so they show the same one.
        { usage: usageView(reading.report), chart: usageChart(reading.report, { id: 'usage-chart', subject }), rangeSearch: rangeSearch(reading.fields) }),
  });

  const show = (req: Request, res: Response, template: string, title: string, context: Record<string, unknown>, reading: Reading, section: 'keys' | 'organizations') =>
    pages.show(req, res, template, title, context, { section, status: 'error' in reading ? 400 : 200 });

  return [
    page('/keys/:keyId/usage', 'auditor', async (req, res) => {
      const item: KeyItem = await services.keys.get(req.params.keyId);
      const organizations = await services.organizations.list();
      const key = keyRow(item, new Map(organizations.map((org) => [org.id, org.name])), now());
      const organization = organizations.find((org) => org.id === key.organizationId);
      const reading = await read(req.query, (range) => services.usage.key(key.id, range));
      const subject = `Key ${key.id}${key.label ? ` (${key.label})` : ''}`;
      show(req, res, 'key-usage.njk', `Usage of key ${key.id}`, { key, organization, ...shown(reading, subject) }, reading, 'keys');
    }),

    page('/organizations/:organization/usage', 'auditor', async (req, res) => {
      const organization = await overview(services, req.params.organization);
      const reading = await read(req.query, (range) => services.usage.organization(organization.id, range));
      const keys = 'report' in reading ? await organizationKeys(services, organization, reading.report, now()) : [];
      show(req, res, 'organization-usage.njk', `Usage of ${organization.name}`, { organization, keys, ...shown(reading, organization.name) }, reading, 'organizations');
    }),
  ];
}

/** The organization's overview row (for its name); the lookup names an unknown one as a 404. */
async function overview(services: AdminServices, name: string): Promise<OrganizationOverview> {
  const { id } = await services.organizations.find(name);
  const found = (await services.organizations.list()).find((org) => org.id === id);
  if (!found) throw new Error(`organization ${id} was found but is not listed`);
  return found;
}

/** Every key of the organization with its requests in the report's range, the busiest first; keys without any too. */
async function organizationKeys(services: AdminServices, organization: OrganizationOverview, report: UsageReport, at: Date) {
  const requests = new Map(report.keys.map(({ keyId, requests: n }) => [keyId, n]));
  const names = new Map([[organization.id, organization.name]]);
  return (await services.keys.list(organization.id))
    .map((key) => ({ ...keyRow(key, names, at), requests: requests.get(key.id) ?? 0 }))
    .sort((a, b) => b.requests - a.requests || a.id.localeCompare(b.id))
    .map((key) => ({ ...key, requestsText: countText(key.requests) }));
}
