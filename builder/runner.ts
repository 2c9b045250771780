// Runs builds one at a time: full builds on a schedule or on request, and single-organization
// builds when the platform announces a change (debounced, so a burst of row changes is one build).
// What each build changed or could not do goes to the process's log.
import cron, { type ScheduledTask } from 'node-cron';
import type { Log } from '../snapshot/log.ts';
import type { BuildTrigger } from '../snapshot/manifest.ts';
import { buildOrganizations, type BuildContext, type OrganizationResult } from './build.ts';

export interface RunnerOptions {
  log: Log;
  /** Quiet period after the last change notification of an organization before it is rebuilt. */
  debounceMs?: number;
}

export class BuildRunner {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private task: ScheduledTask | undefined;
  private readonly log: Log;

  constructor(
    private readonly context: BuildContext,
    private readonly options: RunnerOptions,
  ) {
    this.log = options.log;
  }

  /** Queues a build behind any running one; resolves with its results. */
  build(trigger: BuildTrigger, organizationIds?: string[]): Promise<OrganizationResult[]> {
    const run = this.tail.then(() => buildOrganizations(this.context, { trigger, ...(organizationIds ? { organizationIds } : {}) }));
    this.tail = run.catch(() => undefined);
    return run.then((results) => {
      for (const result of results) this.report(trigger, result);
      return results;
    });
  }

  /** A failure is a warning (the organization keeps its previous snapshot); a change is news; unchanged is neither. */
  private report(trigger: BuildTrigger, result: OrganizationResult): void {
    const fields = { trigger, organizationId: result.id, slug: result.slug };
    if (result.result === 'failed') {
      this.log.warn(`${result.slug}: build failed: ${result.error}`, { ...fields, stage: result.failure?.stage, resource: result.failure?.resource });
    } else if (result.result !== 'unchanged') {
      this.log.info(`${result.slug}: ${result.result}${result.snapshotId ? ` ${result.snapshotId}` : ''}`, {
        ...fields,
        result: result.result,
        snapshotId: result.snapshotId,
        objectsWritten: result.objectsWritten,
      });
    }
  }

  /** A build that could not run at all (the organizations could not be listed): nothing was published. */
  private failed(trigger: BuildTrigger, error: unknown): void {
    this.log.error(`${trigger} build failed`, { trigger, err: error });
  }

  /** A change notification for one organization: rebuild it after a short quiet period. */
  organizationChanged(organizationId: string): void {
    clearTimeout(this.pending.get(organizationId));
    this.pending.set(
      organizationId,
      setTimeout(() => {
        this.pending.delete(organizationId);
        this.build('change', [organizationId]).catch((error: unknown) => this.failed('change', error));
      }, this.options.debounceMs ?? 150),
    );
  }

  schedule(expression: string): void {
    this.task = cron.schedule(expression, () => {
      this.build('schedule').catch((error: unknown) => this.failed('schedule', error));
    });
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    await this.tail;
  }
}
