// Types of build.mjs, for TypeScript code that imports it (the repository's test does). The
// example itself is plain JavaScript with JSDoc types; keep the two in step.

/** One answer of the integration API, as the pinned client received it. */
export interface Answer {
  /** The API path asked for, below the host: `/api/integration/v1/events?timing=all&pageSize=100&page=2`. */
  path: string;
  status: number;
  body: unknown;
  etag: string;
  /** The snapshot that decided the answer (`Marquee-Snapshot-Id`). */
  snapshotId: string;
}

/** The state file (`<out>.marquee.json`). */
export interface State {
  version: number;
  /** The snapshot every page of the output comes from. */
  snapshotId: string;
  builtAt: string;
  /** When the clock alone next changes an answer, as GET /changes said. */
  nextClockChangeAt: string | null;
  templates: string;
  /** Output file → API path → the ETag of the answer it was rendered from. */
  pages: Record<string, Record<string, string>>;
}

export interface BuildOptions {
  url: string;
  key: string;
  outDir: string;
  stateFile?: string;
  full?: boolean;
  pageSize?: number;
  concurrency?: number;
  maxRestarts?: number;
  onAnswer?: (answer: Answer) => void | Promise<void>;
  log?: (line: string) => void;
}

export interface BuildReport {
  mode: 'full' | 'incremental';
  snapshotId: string;
  previousSnapshotId: string | undefined;
  restarts: number;
  requests: number;
  written: string[];
  removed: string[];
  unchanged: number;
  nextClockChangeAt: string | null;
  state: State;
}

export function buildSite(options: BuildOptions): Promise<BuildReport>;
export function nextRebuildDelay(state: Pick<State, 'nextClockChangeAt'>, now?: number): number | null;
export function describeNextRebuild(state: Pick<State, 'nextClockChangeAt'>, now?: number): string;
