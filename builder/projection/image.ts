// docs/api.md §2 Image, built field by field so no extra column of a file row can reach a snapshot.
import type { ImageRow } from '../platform/rows.ts';
import type { Image } from '../../snapshot/schema-types.ts';

/** A missing file (null, or undefined from a careless reader) is a null image, never absent. */
export function projectImage(row: ImageRow | null | undefined): Image | null {
  return row == null ? null : { fileId: row.fileId, url: row.url };
}
