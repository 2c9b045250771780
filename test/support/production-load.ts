// A light, bounded load on a running gateway, and the rule its answers keep while backends fail.
// The rule is docs/production.md, "When a backend is down": a valid key gets its organization's own data or 503
// SERVICE_UNAVAILABLE with Retry-After; a revoked key is never served.
import { Pool } from 'undici';
import { API } from './gateway-fixtures.ts';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** performance.now() when it arrived. */
  at: number;
  ms: number;
}

export interface GatewayClient {
  get(path: string, key: string): Promise<Answer>;
  close(): Promise<void>;
}

/** A request not answered within this is a hang: the gateway's own request timeout is 30 s. */
const ANSWER_TIMEOUT_MS = 25_000;

export function gatewayClient(url: string): GatewayClient {
  const pool = new Pool(url, { connections: 8, headersTimeout: ANSWER_TIMEOUT_MS, bodyTimeout: ANSWER_TIMEOUT_MS });
  return {
    async get(path, key) {
      const sent = performance.now();
      const response = await pool.request({ path: `${API}${path}`, method: 'GET', headers: { 'x-api-key': key } });
      const body = await response.body.text();
      const at = performance.now();
      return { status: response.statusCode, headers: response.headers, body, at, ms: at - sent };
    },
    close: () => pool.close(),
  };
}

/** What is wrong with a 503: undefined when it is the documented SERVICE_UNAVAILABLE with Retry-After. */
function undocumented503(answer: Answer): string | undefined {
  const problem = JSON.parse(answer.body) as { errorCode?: string };
  if (problem.errorCode !== 'SERVICE_UNAVAILABLE') return `503 with ${problem.errorCode}`;
  return Number(answer.headers['retry-after']) >= 1 ? undefined : '503 without Retry-After';
}

/** What is wrong with an answer to a valid key of `organizationId`, whose `/organization` may carry only one of `names`. */
export function wrongForValidKey(answer: Answer, organizationId: string, names: ReadonlySet<string>): string | undefined {
  if (answer.status === 503) return undocumented503(answer);
  if (answer.status !== 200) return `${answer.status}: ${answer.body.slice(0, 200)}`;
  const { id, name } = JSON.parse(answer.body) as { id?: string; name?: string };
  if (id !== organizationId) return `200 with organization ${id}`;
  return names.has(name ?? '') ? undefined : `200 with name ${JSON.stringify(name)}, expected one of ${JSON.stringify([...names])}`;
}

/** What is wrong with an answer to a revoked key: anything but a refusal (401, 429 once an address sent too many) or a documented 503. */
export function wrongForRevokedKey(answer: Answer): string | undefined {
  if (answer.status === 401 || answer.status === 429) return undefined;
  if (answer.status === 503) return undocumented503(answer);
  return `revoked key answered ${answer.status}: ${answer.body.slice(0, 200)}`;
}

export interface LoadReport {
  statuses: Map<number, number>;
  /** What the judge found wrong, and requests that failed or hung. */
  problems: string[];
  answers: Answer[];
}

export interface LoadOptions {
  ask: () => Promise<Answer>;
  judge: (answer: Answer) => string | undefined;
  /** Pause between the end of one request and the next: one request at a time. */
  intervalMs: number;
}

/** Runs `during` under each load; resolves with each load's report once `during` and the requests under way are done. */
export async function underLoad(loads: LoadOptions[], during: () => Promise<void>): Promise<LoadReport[]> {
  let running = true;
  const reports = loads.map(() => ({ statuses: new Map<number, number>(), problems: [] as string[], answers: [] as Answer[] }));
  const loops = loads.map(async ({ ask, judge, intervalMs }, index) => {
    const report = reports[index]!;
    while (running) {
      try {
        const answer = await ask();
        report.answers.push(answer);
        report.statuses.set(answer.status, (report.statuses.get(answer.status) ?? 0) + 1);
        const wrong = judge(answer);
        if (wrong) report.problems.push(wrong);
      } catch (error) {
        report.problems.push(`no answer: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  });
  try {
    await during();
  } finally {
    running = false;
    await Promise.all(loops);
  }
  return reports;
}
