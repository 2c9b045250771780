// The one error the projection throws: data it cannot turn into a valid resource. The builder
// reports it (with the organization) and keeps the organization's previous snapshot.

export class ProjectionError extends Error {
  override name = 'ProjectionError';
}
