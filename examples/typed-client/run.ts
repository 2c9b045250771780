// The example as a program, against a running gateway (`npm start` prints a demo key):
//
//   MARQUEE_URL=http://127.0.0.1:8080 MARQUEE_KEY=mqk_… node --import tsx examples/typed-client/run.ts
import { createMarqueeClient, fetchChanges, fetchOrganization, loadHomePage } from './client.ts';

const client = createMarqueeClient(process.env.MARQUEE_URL ?? 'http://127.0.0.1:8080', process.env.MARQUEE_KEY ?? '');

const home = await loadHomePage(client);
console.log(`${home.organization.name}: ${home.totalUpcoming} upcoming events`);
for (const event of home.upcoming) console.log(`  ${event.start.local}  ${event.name}  ${event.publicUrl}`);

// A site's cache, refreshed the way it would be a minute later: the kept ETag goes back in
// If-None-Match and the gateway answers 304 while nothing changed.
const first = await fetchOrganization(client);
const again = await fetchOrganization(client, first);
console.log(`organization: ${first.status} ${first.etag}, then ${again.status}`);

// An incremental site's sync: everything once, then what changed since the snapshot it read.
const everything = await fetchChanges(client);
const since = await fetchChanges(client, everything.snapshotId);
console.log(
  `snapshot ${everything.snapshotId}: ${everything.changed.length} paths; since then ${since.changed.length} changed; next clock change ${everything.nextClockChangeAt ?? 'none'}`,
);
