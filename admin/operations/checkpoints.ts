// The publication log's latest checkpoint (checkpoint-admin.ts).
// One declaration per operation (operation.ts): the admin API's route, its OpenAPI operation
// and its audit action are derived from it.
import { operation } from './operation.ts';
import { schemaRef } from '../api-schemas.ts';
import { query } from './forms.ts';

/** Each operation of the area, in the order the OpenAPI document lists them. */
export const CHECKPOINT_OPERATIONS = [
  operation({
    name: 'getCheckpoint',
    method: 'get',
    path: '/checkpoint',
    role: 'auditor',
    tag: 'Verifications',
    summary:
      "The publication log's latest checkpoint in the store, checked against the signing keys it publishes, as `marquee checkpoint --json` prints it; 404 when the store holds none. An auditor keeps it for `marquee verify --since`; with `since` (a kept checkpoint's size), also the consistency proof from it, as `checkpoint --since KEPT --proof FILE` writes it",
    query: query({ since: { type: 'string', pattern: '^[0-9]{1,15}$', description: "a kept checkpoint's size: add the consistency proof from it to the latest" } }),
    status: 200,
    response: schemaRef('PublicationLogCheckpoint'),
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'HISTORY_BROKEN'],
    run: (services, { query }) => services.checkpoints.latest(query.since === undefined ? undefined : Number(query.since)),
  }),
] as const;
