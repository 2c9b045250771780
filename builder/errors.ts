// Builder errors carry their cause and their context: which organization, which resource.

export class BuildError extends Error {
  override name = 'BuildError';

  constructor(
    message: string,
    readonly organizationId: string,
    readonly resource?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class ReadError extends BuildError {
  override name = 'ReadError';
}
export class ProjectionError extends BuildError {
  override name = 'ProjectionError';
}
export class ValidationError extends BuildError {
  override name = 'ValidationError';
}
export class PublishError extends BuildError {
  override name = 'PublishError';
}

/** One line for an operator: the organization, the resource, the reason. */
export function describeBuildError(error: unknown): string {
  if (error instanceof BuildError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return error instanceof Error ? error.message : String(error);
}
