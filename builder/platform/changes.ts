// Change-triggered builds (docs/design.md "on change"): the platform's triggers NOTIFY
// marquee_changes with an organization id (docs/platform.md); this turns those into callbacks.
import { isUuid } from '../../snapshot/layout.ts';
import type { ListenOptions, SqlClient } from '../../records/database/sql.ts';

const CHANGES_CHANNEL = 'marquee_changes';

/**
 * Calls `onOrganization` with each changed organization's id, and `onReconnect` each time listening
 * resumes after the database connection was lost (changes notified meanwhile were missed: rebuild
 * everything). Resolves to an unsubscribe function.
 */
export function listenForChanges(db: SqlClient, onOrganization: (organizationId: string) => void, options: ListenOptions = {}): Promise<() => Promise<void>> {
  return db.listen(
    CHANGES_CHANNEL,
    (payload) => {
      // A platform that calls pg_notify itself may send anything; only an id names an organization.
      const organizationId = payload.trim().toLowerCase();
      if (isUuid(organizationId)) onOrganization(organizationId);
    },
    options,
  );
}
