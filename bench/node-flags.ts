// The node flags bin/marquee runs the product with (keep in step with it), so that every
// benchmark measures the program as operators run it.
export const PRODUCT_NODE_FLAGS = ['--enable-source-maps', '--heap-growing-percent=50'];

/** What bin/marquee adds for `serve`, the gateway alone; it says why. */
export const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=8'];

/**
 * For benchmark children: they are TypeScript (run through tsx) and load the product itself
 * compiled, from dist/, as bin/marquee does.
 */
export const NODE_FLAGS = [...PRODUCT_NODE_FLAGS, '--import', 'tsx'];

/**
 * For the gateway benchmarks' servers, the gateway and its references alike: each runs with the
 * flags `marquee serve` runs the gateway with, so that a ratio between two compares their code.
 */
export const SERVER_NODE_FLAGS = [...NODE_FLAGS, ...GATEWAY_NODE_FLAGS];

/** The URL of a compiled product module, e.g. compiled('gateway/server.js'), for a dynamic import. */
export const compiled = (module: string): string => new URL(`../dist/${module}`, import.meta.url).href;
