// The organizations' slugs and names in the admin process's memory, so that a console search finds
// its candidates without reading the platform's whole relation (no index can serve a contains-search
// there: it is the platform's, docs/performance.md "Console at fleet scale"). Loaded at the first
// search, then read again in the background once older than a few seconds: a search never waits
// for it but the first. What a search finds is read again from the database, by id and with the
// same test (organization-search.ts), so an organization renamed since shows as it is now, and one
// no longer matching is dropped; one created or renamed to match since is found after the next load.

/** How old the names may be before a search has them read again (in the background). */
const REFRESH_AFTER_MS = 5_000;

interface Entry {
  id: string;
  /** Slug and name in lower case, apart, so that no match spans the two. */
  text: string;
}

export class OrganizationNames {
  private entries: readonly Entry[] | undefined;
  private loadedAt = 0;
  private loading: Promise<readonly Entry[]> | undefined;

  constructor(
    private readonly load: () => Promise<ReadonlyArray<{ id: string; slug: string; name: string }>>,
    private readonly refreshAfterMs = REFRESH_AFTER_MS,
  ) {}

  /** Ids of the organizations whose slug or name contains `search`, whatever its case, as of the last load. */
  async candidates(search: string): Promise<string[]> {
    let entries = this.entries;
    if (entries === undefined) entries = await this.refresh();
    // Old names still find candidates while new ones load; a failed load keeps them, and the next search tries again.
    else if (Date.now() - this.loadedAt > this.refreshAfterMs) this.refresh().catch(() => undefined);
    const needle = search.toLowerCase();
    const found: string[] = [];
    for (const entry of entries) if (entry.text.includes(needle)) found.push(entry.id);
    return found;
  }

  private refresh(): Promise<readonly Entry[]> {
    this.loading ??= this.load()
      .then((rows) => {
        this.entries = rows.map((row) => ({ id: row.id, text: `${row.slug.toLowerCase()}\n${row.name.toLowerCase()}` }));
        this.loadedAt = Date.now();
        return this.entries;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }
}
