// The node flags bin/marquee runs the product with (keep in step with it), so that every
// benchmark measures the program as operators run it.
export const NODE_FLAGS = ['--enable-source-maps', '--heap-growing-percent=50', '--import', 'tsx'];
