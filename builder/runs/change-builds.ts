// Builds of one organization when the platform announces a change: debounced per organization (a
// burst of row changes is one build), coalesced while that organization's build runs (built once
// more afterwards, since its read may have come before the change), and a few at once, so memory
// stays bounded as in a full build. They run beside the full-run queue, never behind it.
//
// Every builder of a fleet hears every notification. With claims (several builders), a builder
// builds a change only when it claims the organization after hearing it; a claim another builder
// took after this one heard the change covers it (that builder's read comes after its claim, so
// after the change), and this one leaves it: built once by the fleet, not once per builder. A
// covering claim not yet done is looked at again later, and taken over if its builder stopped
// keeping it (database-change-claims.ts): a builder that dies mid-change does not lose it.

/** What a claim on an organization's change build came to. */
export type ChangeClaim =
  /** This builder builds it, and calls `release` once its build is over, whatever came of it. */
  | { outcome: 'claimed'; release(): Promise<void> }
  /** Another builder claimed it after this one heard the change, and its build is over. */
  | { outcome: 'built' }
  /** Another builder claimed it after this one heard the change, and builds it now. */
  | { outcome: 'building' };

export interface ChangeClaims {
  /**
   * Claims the build of `organizationId`'s change this builder heard `heardAgoMs` ago. Never
   * rejects: when the claims cannot be asked, this builder builds it (another may too), since a
   * change built twice is harmless and one built by nobody is not.
   */
  claim(organizationId: string, heardAgoMs: number): Promise<ChangeClaim>;
}

export interface ChangeBuildsOptions {
  /** Builds one organization; rejects only when it could not even be listed. */
  build: (organizationId: string) => Promise<unknown>;
  /** Its build could not run at all: no notification will come again for this change. */
  onUnbuilt: (organizationId: string, error: unknown) => void;
  /** Quiet period after the last change notification of an organization before it is rebuilt. */
  debounceMs: number;
  /** Change builds running at once. */
  concurrency: number;
  /** Shared with the other builders of the fleet; without, this builder builds every change it hears. */
  claims?: ChangeClaims;
  /** How long after finding another builder building a change this one looks at its claim again. */
  lookAgainMs?: number;
}

/** Without claims: this builder is the only one. */
const UNCLAIMED: ChangeClaim = { outcome: 'claimed', release: async () => {} };
const DEFAULT_LOOK_AGAIN_MS = 5_000;

export class ChangeBuilds {
  private readonly debouncing = new Map<string, NodeJS.Timeout>();
  /** Quiet long enough, waiting for a change build to be free. */
  private readonly due = new Set<string>();
  /** When this builder last heard of a change of each organization not being built (performance.now()). */
  private readonly heardAt = new Map<string, number>();
  private readonly building = new Set<string>();
  /** Changed while its build ran, perhaps after its read, and when last heard: built once more afterwards. */
  private readonly changedWhileBuilding = new Map<string, number>();
  /** Another builder builds its change: looked at again, unless a newer change comes first. */
  private readonly lookingAgain = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: ChangeBuildsOptions) {}

  /** A change of `organizationId`, heard at `heardAt` (now unless it is one heard earlier, coming back). */
  changed(organizationId: string, heardAt = performance.now()): void {
    if (this.stopped) return;
    if (this.building.has(organizationId)) {
      this.changedWhileBuilding.set(organizationId, heardAt);
      return;
    }
    this.heardAt.set(organizationId, heardAt);
    clearTimeout(this.lookingAgain.get(organizationId));
    this.lookingAgain.delete(organizationId);
    // Due but not started: its read comes after this change.
    if (this.due.has(organizationId)) return;
    clearTimeout(this.debouncing.get(organizationId));
    this.debouncing.set(
      organizationId,
      setTimeout(() => {
        this.debouncing.delete(organizationId);
        this.becomeDue(organizationId);
      }, this.options.debounceMs),
    );
  }

  /** Forgets changes not yet being built; resolves once the running builds are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of [...this.debouncing.values(), ...this.lookingAgain.values()]) clearTimeout(timer);
    this.debouncing.clear();
    this.lookingAgain.clear();
    this.due.clear();
    this.heardAt.clear();
    this.changedWhileBuilding.clear();
    await Promise.all(this.running);
  }

  private becomeDue(organizationId: string): void {
    this.due.add(organizationId);
    this.startDue();
  }

  private startDue(): void {
    for (const organizationId of this.due) {
      if (this.building.size >= this.options.concurrency) return;
      this.due.delete(organizationId);
      this.building.add(organizationId);
      const heardAt = this.heardAt.get(organizationId) ?? performance.now();
      this.heardAt.delete(organizationId);
      const build: Promise<void> = this.claimAndBuild(organizationId, heardAt).finally(() => {
        this.running.delete(build);
        this.building.delete(organizationId);
        const again = this.changedWhileBuilding.get(organizationId);
        this.changedWhileBuilding.delete(organizationId);
        if (again !== undefined) this.changed(organizationId, again);
        this.startDue();
      });
      this.running.add(build);
    }
  }

  private async claimAndBuild(organizationId: string, heardAt: number): Promise<void> {
    // Without claims the build starts at once, as it always did.
    const claim = this.options.claims ? await this.options.claims.claim(organizationId, Math.max(0, performance.now() - heardAt)) : UNCLAIMED;
    if (claim.outcome === 'building') this.lookAgain(organizationId, heardAt);
    if (claim.outcome !== 'claimed') return;
    try {
      await this.options.build(organizationId);
    } catch (error) {
      this.options.onUnbuilt(organizationId, error);
    } finally {
      await claim.release();
    }
  }

  /** Claims the change heard at `heardAt` again later: by then the other builder is done, or has stopped keeping its claim. */
  private lookAgain(organizationId: string, heardAt: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.lookingAgain.delete(organizationId);
      // A newer change of it is on its way already, and its claim covers this one.
      if (this.stopped || this.debouncing.has(organizationId) || this.due.has(organizationId)) return;
      if (this.building.has(organizationId)) {
        this.changedWhileBuilding.set(organizationId, Math.max(heardAt, this.changedWhileBuilding.get(organizationId) ?? heardAt));
        return;
      }
      this.heardAt.set(organizationId, heardAt);
      this.becomeDue(organizationId);
    }, this.options.lookAgainMs ?? DEFAULT_LOOK_AGAIN_MS);
    timer.unref();
    this.lookingAgain.set(organizationId, timer);
  }
}
