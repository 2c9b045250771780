// Every environment variable Marquee reads is declared once, in bin/config/variables.ts: parseConfig
// reads the environment through it and nothing else, the rest of the code reads only the variables
// the table says it reads where it says, docs/configuration.md is what npm run docs:config makes
// of it, and the deploy/ environment files set each variable only for a process that reads it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../bin/config.ts';
import type { Role } from '../../../bin/config/variable.ts';
import { VARIABLES } from '../../../bin/config/variables.ts';
import { CONFIGURATION_DOC, configurationDoc } from '../../../scripts/config-docs.ts';
import { directoryBackend } from '../../../snapshot/stores/directory.ts';
import { s3Backend } from '../../../snapshot/stores/s3.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PRODUCT = ['bin', 'admin', 'builder', 'gateway', 'records', 'snapshot', 'runtime'];
const declared = Object.values(VARIABLES);
const settings = declared.filter((variable) => 'kind' in variable).map((variable) => variable.name);
const externals = new Map<string, string>(declared.flatMap((variable) => ('readBy' in variable ? [[variable.name, variable.readBy] as const] : [])));

function sourceFiles(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The variables a source text names where it reads one: process.env.NAME, env.NAME, env?.NAME, env['NAME']. */
function variablesRead(source: string): string[] {
  return [...source.matchAll(/\benv(?:\?)?\.([A-Z][A-Z0-9_]*)\b|\benv\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g)].map((match) => (match[1] ?? match[2])!);
}

/** Every variable an environment was asked for, in the order asked. */
function recordingEnv(values: Record<string, string> = {}): { env: NodeJS.ProcessEnv; asked: string[] } {
  const asked: string[] = [];
  const env = new Proxy(values, {
    get(target, name) {
      if (typeof name === 'string') asked.push(name);
      return target[name as string];
    },
  });
  return { env, asked };
}

describe('the table of variables', () => {
  it('is what docs/configuration.md says (run npm run docs:config after changing it)', () => {
    expect(readFileSync(CONFIGURATION_DOC, 'utf8')).toBe(configurationDoc());
  });

  it('is what parseConfig reads: every setting, each through the table, and no variable it does not declare', () => {
    const environments: Record<string, string>[] = [{}, { SNAPSHOT_STORE: 's3://bucket/prefix', SNAPSHOT_SIGNING_KEY: 'none' }];
    for (const values of environments) {
      const { env, asked } = recordingEnv(values);
      parseConfig(env, '/srv', false);
      // S3_ENDPOINT: the store backends' own (below), read by parseStoreSetting for parseConfig.
      expect(new Set(asked)).toEqual(new Set([...settings, 'S3_ENDPOINT']));
      expect(asked.filter((name) => !(name in VARIABLES))).toEqual([]);
    }
  });

  it("declares every store backend's own variables, read where the backend is", () => {
    for (const backend of [directoryBackend, s3Backend]) {
      for (const name of backend.variables) expect(externals.get(name), name).toBe(`snapshot/stores/${backend.name}.ts`);
    }
  });

  it('is the only door to the environment: code names only the variables the table says it reads there, and reads no other', () => {
    const found = new Map<string, string[]>();
    const whole: string[] = [];
    for (const file of PRODUCT.flatMap(sourceFiles)) {
      const source = readFileSync(join(ROOT, file), 'utf8');
      for (const name of variablesRead(source)) found.set(name, [...new Set([...(found.get(name) ?? []), file])]);
      // The environment handed on whole, or read by a name held in a variable.
      if (/process\.env(?!\.[A-Z])|\benv\[(?!\s*['"`])/.test(source)) whole.push(file);
    }
    // bin/cli.ts hands process.env to parseConfig; bin/config.ts reads it by the table's names, the store backends by their own lists (above).
    expect(whole.sort()).toEqual(['bin/cli.ts', 'bin/config.ts', 'snapshot/stores/store-backends.ts']);
    expect(Object.fromEntries([...found].map(([name, files]) => [name, files.sort()]))).toEqual(Object.fromEntries([...externals].map(([name, file]) => [name, [file]])));
  });

  it('reads every setting the deploy/ environment files set, for the processes each file is for', () => {
    const rolesOf = new Map<string, readonly Role[]>([
      ['gateway.env', ['gateway']],
      ['builder.env', ['builder']],
      ['shared.env', ['gateway', 'builder']],
    ]);
    const files = readdirSync(join(ROOT, 'deploy')).filter((name) => name.endsWith('.env'));
    expect(files.sort()).toEqual([...rolesOf.keys()].sort());
    for (const file of files) {
      const text = readFileSync(join(ROOT, 'deploy', file), 'utf8');
      // Set, or shown commented out for the operator to set.
      const names = [...text.matchAll(/^#?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!);
      expect(names.length, file).toBeGreaterThan(0);
      for (const name of names) {
        const variable = Object.values(VARIABLES).find((candidate) => candidate.name === name);
        expect(variable, `${file}: ${name}`).toBeDefined();
        for (const role of rolesOf.get(file)!) expect(variable!.roles, `${file}: ${name} is read by ${role}`).toContain(role);
      }
    }
  });
});

describe('docs:config', () => {
  it('writes each variable as one row: its own default, else its fallback as an operator writes it, else unset', () => {
    const text = configurationDoc([VARIABLES.PORT, VARIABLES.WEBHOOK_RETRY_SCHEDULE, VARIABLES.HTTP_HEADERS_TIMEOUT, VARIABLES.TRUST_PROXY, VARIABLES.ADMIN_TOKEN]);
    expect(text).toContain(`| \`PORT\` | \`8080\` | \`gateway\` | ${VARIABLES.PORT.doc} |\n`);
    expect(text).toContain('| `WEBHOOK_RETRY_SCHEDULE` | `5s,5m,30m,2h,5h,10h,10h` | `builder` |');
    expect(text).toContain('| `HTTP_HEADERS_TIMEOUT` | `10` | `gateway` |');
    expect(text).toContain('| `TRUST_PROXY` | unset: none | `gateway` |');
    expect(text).toContain('| `ADMIN_TOKEN` | unset | `gateway`, `builder` |');
  });

  it('refuses text that would break the table, naming the variable', () => {
    expect(() => configurationDoc([{ ...VARIABLES.PORT, doc: 'one | two' }])).toThrow('PORT: a table cell cannot hold "|" or a line break');
  });
});
