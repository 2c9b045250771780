// A build stage that could not complete: the platform database failed a read, the projection met
// platform data it cannot represent (an unknown time zone), the store refused a write. A resource
// that fails its schema is not one of these: validation returns an outcome (builder/validate.ts).
// Either way the organization keeps its previous snapshot and its result says why.
import { describeError } from '../runtime/errors.ts';

export type BuildStage = 'read' | 'project' | 'validate' | 'publish' | 'announce';

export class BuildError extends Error {
  override name = 'BuildError';
  /** The API path at fault, when one is known (e.g. the event whose time zone is unknown). */
  readonly resource: string | undefined;

  constructor(
    readonly stage: BuildStage,
    readonly organizationId: string,
    message: string,
    options: { resource?: string; cause?: unknown } = {},
  ) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.resource = options.resource;
  }

  /** One line for an operator: the message and every cause below it. */
  describe(): string {
    return describeError(this);
  }
}

/**
 * Another builder replaced the organization's pointer after this build read it (a conditional
 * write of the pointer was refused). This build's data may be older than what was published, so
 * it is not written; the organization is built again from a fresh read.
 */
export class PointerConflictError extends Error {
  override name = 'PointerConflictError';
  constructor(readonly organizationId: string) {
    super(`organization ${organizationId}: another builder published meanwhile`);
  }
}
