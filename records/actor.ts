// Who acts on the control plane (docs/design.md "Roles"): every request to the admin port and
// every CLI command runs as one actor with one role, through one door. Admin credentials
// (credentials/) and the audit trail (trail/) record them; the admin port's credential check sets
// the actor of a request (admin/request-actor.ts); the CLI acts as `cli:<user>@<host>`, an owner,
// since whoever can run it can already read the database it writes; what a process does of its own
// accord (start's migrations, sample data and demo key) is `system:<process>`, an owner through the
// CLI's door, which started it. The roles are spelled here once.
import { hostname, userInfo } from 'node:os';

/** Weakest first: each role may do all that the ones before it may. */
export const ADMIN_ROLES = ['auditor', 'operator', 'owner'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/** How an action reached the control plane. */
export type Door = 'api' | 'console' | 'cli';

export interface Actor {
  /** The credential's name; `root` for ADMIN_TOKEN; `cli:<user>@<host>` for the CLI; `system:<process>` for a process's own doings. */
  readonly name: string;
  readonly role: AdminRole;
}

/** Who did an action, through which door, from where: what the audit trail records of its author. */
export interface Attribution {
  readonly actor: Actor;
  readonly door: Door;
  /** The admin port's request id (X-Request-Id); absent for the CLI. */
  readonly requestId?: string;
  /** The client's address as the admin port saw it; absent for the CLI. */
  readonly clientAddress?: string;
}

/** ADMIN_TOKEN: the break-glass owner. */
export const ROOT_ACTOR: Actor = { name: 'root', role: 'owner' };

/**
 * Whoever offered a wrong admin credential: no one the port knows. An entry needs a role, so the
 * weakest; the name has a colon, which no credential's name can take.
 */
export const ANONYMOUS_ACTOR: Actor = { name: 'anonymous:login', role: 'auditor' };

export function cliActor(user: string = currentUser(), host: string = hostname()): Actor {
  return { name: `cli:${user}@${host}`, role: 'owner' };
}

/**
 * A process acting of its own accord, no person having asked for that action: `system:start`,
 * `system:builder`. An owner, as the CLI that started it is; never a credential's name, which
 * admin credentials' names cannot take (no colon).
 */
export function systemActor(process: 'start' | 'builder'): Actor {
  return { name: `system:${process}`, role: 'owner' };
}

/** True when `role` may do what `needed` allows. */
export function roleAllows(role: AdminRole, needed: AdminRole): boolean {
  return ADMIN_ROLES.indexOf(role) >= ADMIN_ROLES.indexOf(needed);
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    // A container's uid may have no passwd entry.
    return process.env.USER ?? String(process.getuid?.() ?? 'unknown');
  }
}
