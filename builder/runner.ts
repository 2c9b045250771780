// Runs builds one at a time: full builds on a schedule or on request, and single-organization
// builds when the platform announces a change (debounced, so a burst of row changes is one build).
import cron, { type ScheduledTask } from 'node-cron';
import type { BuildTrigger } from '../snapshot/manifest.ts';
import { buildOrganizations, type BuildContext, type OrganizationResult } from './build.ts';

export interface RunnerOptions {
  /** Quiet period after the last change notification of an organization before it is rebuilt. */
  debounceMs?: number;
  onResults?: (trigger: BuildTrigger, results: OrganizationResult[]) => void;
  onError?: (error: unknown) => void;
}

export class BuildRunner {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private task: ScheduledTask | undefined;

  constructor(private readonly context: BuildContext, private readonly options: RunnerOptions = {}) {}

  /** Queues a build behind any running one; resolves with its results. */
  build(trigger: BuildTrigger, organizationIds?: string[]): Promise<OrganizationResult[]> {
    const run = this.tail.then(() => buildOrganizations(this.context, { trigger, ...(organizationIds ? { organizationIds } : {}) }));
    this.tail = run.catch(() => undefined);
    return run.then((results) => {
      this.options.onResults?.(trigger, results);
      return results;
    });
  }

  /** A change notification for one organization: rebuild it after a short quiet period. */
  organizationChanged(organizationId: string): void {
    clearTimeout(this.pending.get(organizationId));
    this.pending.set(organizationId, setTimeout(() => {
      this.pending.delete(organizationId);
      this.build('change', [organizationId]).catch((error: unknown) => this.options.onError?.(error));
    }, this.options.debounceMs ?? 150));
  }

  schedule(expression: string): void {
    this.task = cron.schedule(expression, () => {
      this.build('schedule').catch((error: unknown) => this.options.onError?.(error));
    });
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    await this.tail;
  }
}
