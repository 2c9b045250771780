// The audit trail's entries for wrong admin credentials (docs/design.md "Failed logins"): the
// admin port's throttle (login-throttle.ts) reports an address at most twice a minute, and each
// report is one `admin.login` entry, refused, by `anonymous:login`, with the address's failures
// so far; never the credential offered. The answer does not wait for it: a guesser must not be
// able to slow the port down by its failures, and a trail that cannot be written is logged.
import { ANONYMOUS_ACTOR, type Attribution } from '../../records/actor.ts';
import { describeError } from '../../runtime/errors.ts';
import type { Log } from '../../runtime/log.ts';
import { actingAs } from '../acting.ts';
import type { FailedLogins } from '../login-throttle.ts';
import type { AuditOperations } from './audit-admin.ts';

export function failedLoginEntries(audit: Pick<AuditOperations, 'recordRefusal'>, log: Log): (failures: FailedLogins) => Promise<void> {
  return async (failures) => {
    const attribution: Attribution = {
      actor: ANONYMOUS_ACTOR,
      door: failures.door,
      clientAddress: failures.address,
      ...(failures.requestId !== undefined ? { requestId: failures.requestId } : {}),
    };
    await actingAs(attribution, () => audit.recordRefusal('admin.login', failures.answer, { changes: { failedLogins: failures.failures } })).catch((error: unknown) => {
      log.warn('the audit trail could not record failed admin logins', { clientAddress: failures.address, reason: describeError(error) });
    });
  };
}
