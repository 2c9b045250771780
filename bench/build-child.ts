// One measured build, in its own process so that its peak RSS is its own. Wired exactly as
// `marquee build` is (bin/services.ts), recording the versions it built from, with the compiled
// product from dist/. `scheduled` is a builder's scheduled run: the organizations changed since
// they were last built, without the verification share. `open NAME` and `join NAME` are builders
// of a fleet (REDIS_URL for their locks, the work list in the platform database), as `marquee builder` runs them: `open` asks its runner for a run over
// every organization, divided among the builders; `join` takes part in the first run another one
// opens, and exits once it is finished. Prints one JSON line.
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
/** Of a run divided among builders: its results, distinct organizations among them, and each builder's share. */
const shared: { run?: number; distinct?: number; byBuilder?: Record<string, number> } = {};
if (mode === 'open' || mode === 'join') {
  const { BuildRunner } = (await import(compiled('builder/runs/runner.js'))) as typeof import('../builder/runs/runner.ts');
  const { DatabaseWorkList } = (await import(compiled('builder/runs/database-work-list.js'))) as typeof import('../builder/runs/database-work-list.ts');
  const log = await createLog({ format: 'json', destination: 2 });
  const services = openBuildServices(config, log);
  const workList = new DatabaseWorkList(db);
  const builder = orgId!;
  const runner = new BuildRunner(services.context(source, db), { log, builder, workList });
  let results: Array<{ id: string; slug: string; result: string; error?: string; builder: string }>;
  if (mode === 'open') {
    results = await runner.build('manual');
  } else {
    // Until the run this builder joined has ended, either way: a failed run (one that lost
    // organizations, docs/design.md "A run never lies") is a result to report, not one to wait past.
    for (;;) {
      const ended = runner.runs.list().find((run) => (run.state === 'finished' || run.state === 'failed') && run.trigger === 'manual');
      if (ended) {
        results = ended.organizations;
        if (ended.state === 'failed') failed.push(`the run failed: ${ended.error ?? 'no reason given'}`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await runner.stop();
  await Promise.all([services.close(), workList.close()]);
  const mine = results.filter((result) => result.builder === builder);
  organizations = mine.length;
  failed.push(...mine.filter((r) => r.result === 'failed').map((r) => `${r.slug}: ${r.error}`));
  const byBuilder: Record<string, number> = {};
  for (const result of results) byBuilder[result.builder] = (byBuilder[result.builder] ?? 0) + 1;
  Object.assign(shared, { run: results.length, distinct: new Set(results.map((result) => result.id)).size, byBuilder });
} else if (mode === 'read') {
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
const usage = process.resourceUsage();
// CPU time (user + system, whole process) beside the wall time: a neighbour's disk or CPU burst
// stretches the wall time of one build by a fifth or more, its own work hardly.
const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
process.stdout.write(`${JSON.stringify({ mode, wallMs, cpuMs, organizations, objectsWritten, failed, maxRssMb: usage.maxRSS / 1024, ...shared })}\n`);
