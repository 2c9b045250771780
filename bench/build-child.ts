// One measured build, in its own process so that its peak RSS is its own. Wired exactly as
// `marquee build` is (bin/services.ts), recording the versions it built from, with the compiled
// product from dist/. `scheduled` is a builder's scheduled run: the organizations changed since
// they were last built, without the verification share. Prints one JSON line.
import { compiled } from './node-flags.ts';

const { buildOrganizations } = (await import(compiled('builder/build.js'))) as typeof import('../builder/build.ts');
const { parseConfig } = (await import(compiled('bin/config.js'))) as typeof import('../bin/config.ts');
const { openBuildServices, openDatabase, platformSource } = (await import(compiled('bin/services.js'))) as typeof import('../bin/services.ts');
const { createLog } = (await import(compiled('bin/log.js'))) as typeof import('../bin/log.ts');

const mode = process.argv[2] ?? 'build';
const orgId = process.argv[3];
const config = parseConfig(process.env);
const db = await openDatabase(config);
const source = platformSource(db);
const started = performance.now();
let objectsWritten = 0;
let organizations = 0;
let failed: string[] = [];
if (mode === 'read') {
  // The reference: only read every organization's rows, as the build does, and drop them.
  for (const org of await source.listOrganizations()) {
    await source.readOrganization(org.id);
    organizations++;
  }
} else {
  const services = openBuildServices(config, await createLog({ format: 'json', destination: 2 }));
  const results = await buildOrganizations(services.context(source, db), {
    trigger: mode === 'scheduled' ? 'schedule' : 'manual',
    ...(orgId ? { organizationIds: [orgId] } : {}),
    ...(mode === 'scheduled' ? { changed: {} } : {}),
  });
  await services.close();
  organizations = results.length;
  objectsWritten = results.reduce((sum, r) => sum + r.objectsWritten, 0);
  failed = results.filter((r) => r.result === 'failed').map((r) => `${r.slug}: ${r.error}`);
}
const wallMs = performance.now() - started;
await db.close();
process.stdout.write(`${JSON.stringify({ mode, wallMs, organizations, objectsWritten, failed, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
