// Dependencies point one way (docs/design.md "Layout"): bin → admin → builder | gateway → records →
// snapshot → runtime, schemas. The gateway never imports the builder nor the builder the gateway;
// admin/ (the control plane) may use the builder, never the gateway (what both need of keys,
// credentials and the trail is a record, on the floor below: records/); records/ (Marquee's own
// records: its schema, connections, keys, credentials, the trail, runs) imports none of the three;
// snapshot/ imports none of them, nor bin/; only bin/ imports admin/ and wires the parts. runtime/,
// the ground floor every process stands on (log, operator errors, shared files, the Redis
// connection), imports no other folder. This walks every import of the product folders
// (import and export-from statements, type-only ones included, and dynamic import() of a
// literal), as TypeScript's own scanner reads them, and names each arrow the design forbids.
//
// Two more arrows follow from the same layout: product code never imports test/, bench/, scripts/
// or examples/ (they are not part of the product), and the gateway and snapshot/ never load a
// database driver ("this is what lets the gateway run without any database code"): not directly,
// and not through anything they import (records/ holds both the key file and the database
// connections, and a gateway may load only the first).
//
// What a command loads at its start is what bin/cli.ts and the command's own module (bin/commands/,
// loaded by its registration) import by value, transitively: the AWS SDK is not among it (a
// quarter to half a second of CPU per command), but loaded with import() by an S3 store or a
// CloudFront invalidator when one is opened.
//
// And the same rule holds inside every folder: no arrow runs back up. At each folder, its rooms —
// each subfolder taken whole, and each file — must import each other without a circle, so they
// stack in floors with every arrow pointing down (gateway/routes/ may import gateway/access/,
// but then nothing under gateway/access/ imports gateway/routes/); no two files import each
// other, directly or round about.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const PRODUCT = ['bin', 'admin', 'builder', 'gateway', 'records', 'snapshot', 'runtime'] as const;
type Area = (typeof PRODUCT)[number];

const NOT_PRODUCT = ['test', 'bench', 'scripts', 'examples'];
const DATABASE_DRIVERS = ['pg', '@electric-sql/pglite'];

/** Folders each product folder must not import, and why. */
const FORBIDDEN_FOLDERS: Record<Area, Record<string, string>> = {
  bin: {},
  admin: { gateway: 'the control plane never imports the gateway: what both use is a record (records/), and bin/ hands over the rest', bin: 'only bin/ wires the parts' },
  builder: { gateway: 'the builder never imports the gateway', admin: 'only bin/ imports the control plane', bin: 'only bin/ wires the parts' },
  gateway: { builder: 'the gateway never imports the builder', admin: 'only bin/ imports the control plane', bin: 'only bin/ wires the parts' },
  records: {
    builder: 'records/ is the floor below the builder, the gateway and the control plane: it imports none of them',
    gateway: 'records/ is the floor below the builder, the gateway and the control plane: it imports none of them',
    admin: 'records/ is the floor below the builder, the gateway and the control plane: it imports none of them',
    bin: 'only bin/ wires the parts',
  },
  snapshot: {
    records: 'snapshot/ is shared by both sides and imports neither, nor their records',
    builder: 'snapshot/ is shared by both sides and imports neither',
    gateway: 'snapshot/ is shared by both sides and imports neither',
    admin: 'only bin/ imports the control plane',
    bin: 'only bin/ wires the parts',
  },
  runtime: {
    records: 'runtime/ is the ground floor: it imports no other folder',
    snapshot: 'runtime/ is the ground floor: it imports no other folder',
    builder: 'runtime/ is the ground floor: it imports no other folder',
    gateway: 'runtime/ is the ground floor: it imports no other folder',
    admin: 'runtime/ is the ground floor: it imports no other folder',
    bin: 'runtime/ is the ground floor: it imports no other folder',
  },
};
const FORBIDDEN_PACKAGES: Record<Area, string[]> = {
  bin: [],
  admin: [],
  builder: [],
  gateway: DATABASE_DRIVERS,
  records: [],
  snapshot: DATABASE_DRIVERS,
  runtime: DATABASE_DRIVERS,
};

interface ImportEdge {
  /** Repository-relative, '/'-separated. */
  file: string;
  line: number;
  specifier: string;
  /** The repository-relative path a relative specifier names, else undefined (a package). */
  target: string | undefined;
}

/** Every module `file` (repository-relative) imports or re-exports from, with its line. */
function importsOf(file: string, text: string): ImportEdge[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map(({ fileName: specifier, pos }) => ({
    file,
    line: text.slice(0, pos).split('\n').length,
    specifier,
    target: specifier.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), specifier)) : undefined,
  }));
}

/** The package a bare specifier names: 'pg', '@electric-sql/pglite', 'node:fs'. */
function packageOf(specifier: string): string {
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

/** Why the design forbids this arrow; undefined when it allows it. */
function violation(edge: ImportEdge): string | undefined {
  const from = edge.file.split('/')[0] as Area;
  if (!PRODUCT.includes(from)) return undefined;
  let problem: string | undefined;
  if (edge.target === undefined) {
    const name = packageOf(edge.specifier);
    if (FORBIDDEN_PACKAGES[from].includes(name)) problem = `${from} → ${name}: no database code in the gateway or below records/`;
  } else {
    const to = edge.target.split('/')[0]!;
    if (edge.target.startsWith('..')) problem = `${from} → outside the repository`;
    else if (FORBIDDEN_FOLDERS[from][to] !== undefined) problem = `${from} → ${to}: ${FORBIDDEN_FOLDERS[from][to]}`;
    else if (NOT_PRODUCT.includes(to)) problem = `${from} → ${to}: ${to}/ is not part of the product`;
  }
  return problem === undefined ? undefined : `${edge.file}:${edge.line} imports '${edge.specifier}' (${problem})`;
}

/** Every product file reachable from the files under `prefix` by relative imports (themselves included). */
function reachedFrom(edges: readonly ImportEdge[], prefix: string): string[] {
  return [...walkFrom(edges, prefix).keys()];
}

/** Breadth first from the files under `prefix`: each reached file with the chain that reached it. */
function walkFrom(edges: readonly ImportEdge[], prefix: string): Map<string, string[]> {
  const byFile = new Map<string, ImportEdge[]>();
  for (const edge of edges) byFile.set(edge.file, [...(byFile.get(edge.file) ?? []), edge]);
  const chains = new Map<string, string[]>([...byFile.keys()].filter((file) => file.startsWith(prefix)).map((file) => [file, [file]]));
  const queue = [...chains.keys()];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const edge of byFile.get(file) ?? []) {
      if (edge.target === undefined || chains.has(edge.target)) continue;
      chains.set(edge.target, [...chains.get(file)!, edge.target]);
      queue.push(edge.target);
    }
  }
  return chains;
}

/** The chains by which the files under `prefix` reach a database driver, shortest first per driver import. */
function databaseDriversReached(edges: readonly ImportEdge[], prefix: string): string[] {
  const chains = walkFrom(edges, prefix);
  return edges
    .filter((edge) => edge.target === undefined && DATABASE_DRIVERS.includes(packageOf(edge.specifier)) && chains.has(edge.file))
    .map((edge) => [...chains.get(edge.file)!, packageOf(edge.specifier)].join(' → '));
}

function typeScriptFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...typeScriptFiles(path));
    else if (entry.name.endsWith('.ts')) files.push(path);
  }
  return files;
}

function productImports(): ImportEdge[] {
  return PRODUCT.flatMap((area) => typeScriptFiles(join(ROOT, area)).flatMap((path) => importsOf(relative(ROOT, path).split(sep).join('/'), readFileSync(path, 'utf8'))));
}

/**
 * The modules evaluating `text` loads: imports and re-exports, but not `import type` and
 * `export type` (dropped from the JavaScript) nor import() (loaded when it runs).
 */
function loadedBy(file: string, text: string): ImportEdge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  for (const statement of source.statements) {
    const specifier = ts.isImportDeclaration(statement)
      ? statement.importClause?.isTypeOnly
        ? undefined
        : statement.moduleSpecifier
      : ts.isExportDeclaration(statement) && !statement.isTypeOnly
        ? statement.moduleSpecifier
        : undefined;
    if (specifier === undefined || !ts.isStringLiteral(specifier)) continue;
    const target = specifier.text.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), specifier.text)) : undefined;
    edges.push({ file, line: source.getLineAndCharacterOfPosition(statement.getStart()).line + 1, specifier: specifier.text, target });
  }
  return edges;
}

describe('what a command loads at its start', () => {
  it('is not the AWS SDK: of every bin/ module (the CLI and each command it loads), none loads it, s3.ts and services.ts included', () => {
    const edges = PRODUCT.flatMap((area) => typeScriptFiles(join(ROOT, area)).flatMap((path) => loadedBy(relative(ROOT, path).split(sep).join('/'), readFileSync(path, 'utf8'))));
    const chains = walkFrom(edges, 'bin/');
    expect([...chains.keys()]).toEqual(expect.arrayContaining(['snapshot/stores/s3.ts', 'bin/services.ts']));
    const sdk = edges.filter((edge) => edge.target === undefined && edge.specifier.startsWith('@aws-sdk/') && chains.has(edge.file));
    expect(sdk.map((edge) => `${chains.get(edge.file)!.join(' → ')} → ${edge.specifier}`)).toEqual([]);
  });

  it('counts value imports and re-exports, not type-only ones nor import()', () => {
    const text = [
      "import { S3Client } from '@aws-sdk/client-s3';",
      "import type { S3Client as Client } from '@aws-sdk/client-s3';",
      "import { type A } from './a.ts';",
      "export { b } from './b.ts';",
      "export type { C } from './c.ts';",
      "const cloudFront = await import('@aws-sdk/client-cloudfront');",
      "import './d.ts';",
    ].join('\n');
    // `import { type A }` keeps an import of './a.ts' in the JavaScript (verbatimModuleSyntax): it loads it.
    expect(loadedBy('bin/x.ts', text).map((edge) => [edge.line, edge.specifier])).toEqual([
      [1, '@aws-sdk/client-s3'],
      [3, './a.ts'],
      [4, './b.ts'],
      [7, './d.ts'],
    ]);
  });
});

describe('import graph of the product folders', () => {
  it('has no arrow the design forbids', () => {
    const edges = productImports();
    const violations = edges.map(violation).filter((text): text is string => text !== undefined);
    // The walk saw the product: its files and the arrows the design allows.
    expect(new Set(edges.map((edge) => edge.file.split('/')[0]))).toEqual(new Set(PRODUCT));
    const arrows = new Set(edges.filter((edge) => edge.target).map((edge) => `${edge.file.split('/')[0]} → ${edge.target!.split('/')[0]}`));
    for (const allowed of [
      'bin → admin',
      'bin → builder',
      'bin → gateway',
      'admin → builder',
      'admin → records',
      'builder → records',
      'gateway → records',
      'records → snapshot',
      'builder → snapshot',
      'gateway → snapshot',
      'snapshot → runtime',
      'builder → runtime',
    ]) {
      expect(arrows).toContain(allowed);
    }
    expect(violations, violations.join('\n')).toEqual([]);
  });

  it("loads no database driver anywhere in the gateway's import graph", () => {
    const edges = productImports();
    const found = databaseDriversReached(edges, 'gateway/');
    // The walk reaches records/ (the key file, the Redis key store) without reaching a driver.
    expect(reachedFrom(edges, 'gateway/').some((file) => file.startsWith('records/keys/'))).toBe(true);
    expect(found, found.join('\n')).toEqual([]);
  });

  it('names the chain of imports by which a folder reaches a database driver', () => {
    const edges = [
      ...importsOf('gateway/app.ts', "import { keys } from '../records/keys/store.ts';"),
      ...importsOf('records/keys/store.ts', "import { db } from '../database/sql.ts';"),
      ...importsOf('records/database/sql.ts', "const pg = await import('pg');"),
    ];
    expect(databaseDriversReached(edges, 'gateway/')).toEqual(['gateway/app.ts → records/keys/store.ts → records/database/sql.ts → pg']);
  });

  it('has no circle among the rooms of any folder: no file circle, and no arrow running back up', () => {
    const arrows = productImports().flatMap((edge) => (edge.target === undefined || !edge.target.endsWith('.ts') ? [] : [[edge.file, edge.target] as const]));
    const circles = folderCircles(arrows);
    expect(circles, circles.join('\n')).toEqual([]);
  });

  it('finds a circle among the rooms of a folder, and among files, naming the arrows', () => {
    expect(
      folderCircles([
        ['gateway/keys/store.ts', 'gateway/access/origin.ts'],
        ['gateway/access/control.ts', 'gateway/keys/store.ts'],
        ['gateway/app.ts', 'gateway/access/control.ts'],
      ]),
    ).toEqual(['gateway/: access/ → keys/ → access/ (gateway/access/control.ts → gateway/keys/store.ts, gateway/keys/store.ts → gateway/access/origin.ts)']);
    expect(
      folderCircles([
        ['admin/a.ts', 'admin/b.ts'],
        ['admin/b.ts', 'admin/a.ts'],
      ]),
    ).toEqual(['admin/: a.ts → b.ts → a.ts (admin/a.ts → admin/b.ts, admin/b.ts → admin/a.ts)']);
    // Across top-level folders too (the root is a folder).
    expect(
      folderCircles([
        ['builder/x.ts', 'snapshot/y.ts'],
        ['snapshot/y.ts', 'builder/z.ts'],
      ]),
    ).toEqual(['./: builder/ → snapshot/ → builder/ (builder/x.ts → snapshot/y.ts, snapshot/y.ts → builder/z.ts)']);
    // Arrows that point down at every level are fine.
    expect(
      folderCircles([
        ['gateway/routes/a.ts', 'gateway/access/b.ts'],
        ['gateway/access/b.ts', 'gateway/keys/c.ts'],
        ['gateway/app.ts', 'gateway/routes/a.ts'],
      ]),
    ).toEqual([]);
  });

  it('reads every kind of import, type-only and dynamic ones included, and nothing in comments or strings', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../builder/b.ts';",
      "import * as c from './c.ts';",
      "import './side-effect.ts';",
      "export { d } from './d.ts';",
      "export * from './e.ts';",
      "export type { F } from './f.ts';",
      "const g = await import('./g.ts');",
      "// import { h } from './commented.ts';",
      'const text = "import { i } from \'./in-a-string.ts\'";',
      "import pg from 'pg';",
    ].join('\n');
    const edges = importsOf('gateway/x/y.ts', text);
    expect(edges.map((edge) => [edge.line, edge.specifier, edge.target])).toEqual([
      [1, './a.ts', 'gateway/x/a.ts'],
      [2, '../builder/b.ts', 'gateway/builder/b.ts'],
      [3, './c.ts', 'gateway/x/c.ts'],
      [4, './side-effect.ts', 'gateway/x/side-effect.ts'],
      [5, './d.ts', 'gateway/x/d.ts'],
      [6, './e.ts', 'gateway/x/e.ts'],
      [7, './f.ts', 'gateway/x/f.ts'],
      [8, './g.ts', 'gateway/x/g.ts'],
      [11, 'pg', undefined],
    ]);
  });

  it('names the file, the line, the import and the rule of every forbidden arrow', () => {
    const cases: Array<[string, string, string | undefined]> = [
      [
        'gateway/routes/x.ts',
        "import { build } from '../../builder/build.ts';",
        "gateway/routes/x.ts:1 imports '../../builder/build.ts' (gateway → builder: the gateway never imports the builder)",
      ],
      [
        'builder/x.ts',
        "import type { KeyStore } from '../gateway/keys/key-store.ts';",
        "builder/x.ts:1 imports '../gateway/keys/key-store.ts' (builder → gateway: the builder never imports the gateway)",
      ],
      [
        'snapshot/x.ts',
        "export * from '../builder/errors.ts';",
        "snapshot/x.ts:1 imports '../builder/errors.ts' (snapshot → builder: snapshot/ is shared by both sides and imports neither)",
      ],
      [
        'snapshot/stores/x.ts',
        "const m = await import('../../gateway/app.ts');",
        "snapshot/stores/x.ts:1 imports '../../gateway/app.ts' (snapshot → gateway: snapshot/ is shared by both sides and imports neither)",
      ],
      ['snapshot/x.ts', "import { run } from '../bin/cli.ts';", "snapshot/x.ts:1 imports '../bin/cli.ts' (snapshot → bin: only bin/ wires the parts)"],
      ['gateway/x.ts', "import { main } from '../bin/cli.ts';", "gateway/x.ts:1 imports '../bin/cli.ts' (gateway → bin: only bin/ wires the parts)"],
      ['builder/x.ts', "import { main } from '../bin/cli.ts';", "builder/x.ts:1 imports '../bin/cli.ts' (builder → bin: only bin/ wires the parts)"],
      ['gateway/x.ts', "\nimport { Pool } from 'pg';", "gateway/x.ts:2 imports 'pg' (gateway → pg: no database code in the gateway or below records/)"],
      [
        'snapshot/x.ts',
        "import { PGlite } from '@electric-sql/pglite';",
        "snapshot/x.ts:1 imports '@electric-sql/pglite' (snapshot → @electric-sql/pglite: no database code in the gateway or below records/)",
      ],
      ['bin/x.ts', "import { CountingKeyStore } from '../test/support/keys.ts';", "bin/x.ts:1 imports '../test/support/keys.ts' (bin → test: test/ is not part of the product)"],
      ['builder/x.ts', "import x from '../../elsewhere.ts';", "builder/x.ts:1 imports '../../elsewhere.ts' (builder → outside the repository)"],
      ['admin/x.ts', "import { line } from '../bin/output.ts';", "admin/x.ts:1 imports '../bin/output.ts' (admin → bin: only bin/ wires the parts)"],
      [
        'builder/x.ts',
        "import type { AdminServices } from '../admin/services.ts';",
        "builder/x.ts:1 imports '../admin/services.ts' (builder → admin: only bin/ imports the control plane)",
      ],
      ['gateway/x.ts', "import { adminApp } from '../admin/app.ts';", "gateway/x.ts:1 imports '../admin/app.ts' (gateway → admin: only bin/ imports the control plane)"],
      ['snapshot/x.ts', "import { adminApp } from '../admin/app.ts';", "snapshot/x.ts:1 imports '../admin/app.ts' (snapshot → admin: only bin/ imports the control plane)"],
      [
        'runtime/x.ts',
        "import { sha256Hex } from '../snapshot/hash.ts';",
        "runtime/x.ts:1 imports '../snapshot/hash.ts' (runtime → snapshot: runtime/ is the ground floor: it imports no other folder)",
      ],
      ['runtime/x.ts', "import { Pool } from 'pg';", "runtime/x.ts:1 imports 'pg' (runtime → pg: no database code in the gateway or below records/)"],
      [
        'admin/x.ts',
        "import { normalizeAllowedOrigin } from '../gateway/access/origin.ts';",
        "admin/x.ts:1 imports '../gateway/access/origin.ts' (admin → gateway: the control plane never imports the gateway: what both use is a record (records/), and bin/ hands over the rest)",
      ],
      [
        'records/x.ts',
        "import { build } from '../builder/build.ts';",
        "records/x.ts:1 imports '../builder/build.ts' (records → builder: records/ is the floor below the builder, the gateway and the control plane: it imports none of them)",
      ],
      [
        'snapshot/x.ts',
        "import type { KeyStore } from '../records/keys/key-store.ts';",
        "snapshot/x.ts:1 imports '../records/keys/key-store.ts' (snapshot → records: snapshot/ is shared by both sides and imports neither, nor their records)",
      ],
      // Allowed arrows.
      ['bin/x.ts', "import { build } from '../builder/build.ts';", undefined],
      ['bin/x.ts', "import { createApp } from '../gateway/app.ts';", undefined],
      ['bin/x.ts', "import { adminApp } from '../admin/app.ts';", undefined],
      ['admin/x.ts', "import { buildOrganizations } from '../builder/build.ts';", undefined],
      ['admin/x.ts', "import { normalizeAllowedOrigin } from '../records/keys/origins.ts';", undefined],
      ['gateway/x.ts', "import { FileKeyStore } from '../records/keys/file-store.ts';", undefined],
      ['records/x.ts', "import { Pool } from 'pg';", undefined],
      ['builder/x.ts', "import { Pool } from 'pg';", undefined],
      ['gateway/x.ts', "import { sha256Hex } from '../snapshot/hash.ts';", undefined],
      ['snapshot/x.ts', "import type { Log } from '../runtime/log.ts';", undefined],
      ['gateway/x.ts', "import { OperatorError } from '../runtime/errors.ts';", undefined],
      ['gateway/keys/x.ts', "import { after } from '../awaitable.ts';", undefined],
      ['snapshot/x.ts', "import openapi from '../schemas/openapi.json' with { type: 'json' };", undefined],
    ];
    for (const [file, text, expected] of cases) {
      expect(importsOf(file, text).map(violation), `${file}: ${text}`).toEqual([expected]);
    }
  });
});

/**
 * Every circle among the rooms of a folder: for each folder, the arrows between files below it,
 * each end taken as the room (subfolder or file) directly in that folder; one line per folder
 * with a circle, naming the rooms round it and the file arrows that make it.
 */
function folderCircles(arrows: ReadonlyArray<readonly [string, string]>): string[] {
  const folders = new Set<string>(['']);
  for (const [from, to] of arrows) {
    for (const file of [from, to]) {
      const parts = file.split('/');
      for (let depth = 1; depth < parts.length; depth++) folders.add(`${parts.slice(0, depth).join('/')}/`);
    }
  }
  const circles: string[] = [];
  for (const folder of [...folders].sort()) {
    const roomOf = (file: string): string | undefined => {
      if (!file.startsWith(folder)) return undefined;
      const rest = file.slice(folder.length).split('/');
      return rest.length === 1 ? rest[0] : `${rest[0]}/`;
    };
    // Room → room → the file arrow that first made that room arrow.
    const graph = new Map<string, Map<string, string>>();
    for (const [from, to] of arrows) {
      const a = roomOf(from);
      const b = roomOf(to);
      if (a === undefined || b === undefined || a === b) continue;
      const targets = graph.get(a) ?? new Map<string, string>();
      if (!targets.has(b)) targets.set(b, `${from} → ${to}`);
      graph.set(a, targets);
    }
    for (const circle of circlesOf(graph)) {
      const via = circle.slice(0, -1).map((room, i) => graph.get(room)!.get(circle[i + 1]!)!);
      circles.push(`${folder || './'}: ${circle.join(' → ')} (${via.join(', ')})`);
    }
  }
  return circles;
}

/**
 * One circle through each knot of a directed graph (each set of nodes that all reach each other),
 * as its nodes with the first repeated at the end, so that every independent circle is named.
 */
function circlesOf(graph: Map<string, Map<string, string>>): string[][] {
  const next = (node: string) => [...(graph.get(node)?.keys() ?? [])].sort();
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (node === to) return true;
      if (seen.has(node)) continue;
      seen.add(node);
      stack.push(...next(node));
    }
    return false;
  };
  const named = new Set<string>();
  const circles: string[][] = [];
  for (const start of [...graph.keys()].sort()) {
    if (named.has(start)) continue;
    const knot = [...graph.keys(), ...[...graph.values()].flatMap((targets) => [...targets.keys()])].filter((node) => reaches(start, node) && reaches(node, start));
    if (!knot.some((node) => node !== start)) continue;
    for (const node of knot) named.add(node);
    // The shortest way back to `start` from its first step inside the knot.
    const inKnot = new Set(knot);
    const first = next(start).find((node) => inKnot.has(node))!;
    const previous = new Map<string, string>();
    const queue = [first];
    const seen = new Set([first]);
    while (queue.length > 0 && !seen.has(start)) {
      const node = queue.shift()!;
      for (const target of next(node)) {
        if (!inKnot.has(target) || seen.has(target)) continue;
        seen.add(target);
        previous.set(target, node);
        queue.push(target);
      }
    }
    const back: string[] = [start];
    for (let node = start; node !== first; node = previous.get(node)!) back.unshift(previous.get(node)!);
    circles.push([start, ...back]);
  }
  return circles;
}
