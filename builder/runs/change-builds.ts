// Builds of one organization when the platform announces a change: debounced per organization (a
// burst of row changes is one build), coalesced while that organization's build runs (built once
// more afterwards, since its read may have come before the change), and a few at once, so memory
// stays bounded as in a full build. They run beside the full-run queue, never behind it.
export interface ChangeBuildsOptions {
  /** Builds one organization; rejects only when it could not even be listed. */
  build: (organizationId: string) => Promise<unknown>;
  /** Its build could not run at all: no notification will come again for this change. */
  onUnbuilt: (organizationId: string, error: unknown) => void;
  /** Quiet period after the last change notification of an organization before it is rebuilt. */
  debounceMs: number;
  /** Change builds running at once. */
  concurrency: number;
}

export class ChangeBuilds {
  private readonly debouncing = new Map<string, NodeJS.Timeout>();
  /** Quiet long enough, waiting for a change build to be free. */
  private readonly due = new Set<string>();
  private readonly building = new Set<string>();
  /** Changed while its build ran, perhaps after its read: built once more afterwards. */
  private readonly changedWhileBuilding = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: ChangeBuildsOptions) {}

  changed(organizationId: string): void {
    if (this.stopped) return;
    if (this.building.has(organizationId)) {
      this.changedWhileBuilding.add(organizationId);
      return;
    }
    // Due but not started: its read comes after this change.
    if (this.due.has(organizationId)) return;
    clearTimeout(this.debouncing.get(organizationId));
    this.debouncing.set(
      organizationId,
      setTimeout(() => {
        this.debouncing.delete(organizationId);
        this.due.add(organizationId);
        this.startDue();
      }, this.options.debounceMs),
    );
  }

  /** Forgets changes not yet being built; resolves once the running builds are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.debouncing.values()) clearTimeout(timer);
    this.debouncing.clear();
    this.due.clear();
    this.changedWhileBuilding.clear();
    await Promise.all(this.running);
  }

  private startDue(): void {
    for (const organizationId of this.due) {
      if (this.building.size >= this.options.concurrency) return;
      this.due.delete(organizationId);
      this.building.add(organizationId);
      const build: Promise<void> = this.options
        .build(organizationId)
        .then(
          () => undefined,
          (error: unknown) => this.options.onUnbuilt(organizationId, error),
        )
        .finally(() => {
          this.running.delete(build);
          this.building.delete(organizationId);
          if (this.changedWhileBuilding.delete(organizationId)) this.changed(organizationId);
          this.startDue();
        });
      this.running.add(build);
    }
  }
}
