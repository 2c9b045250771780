// The main context every nginx the tests start shares (the CDN in front of the store, the load
// balancer in front of gateways, the recipe's shipped CDN file): in the foreground, as root, one
// worker, everything under `prefix`; the caller gives the rest of the http context, and the dynamic
// modules to load, if any (the benchmark's static reference loads brotli_static: bench/nginx-static.ts).
export function nginxConf(prefix: string, options: { errorLevel: 'info' | 'warn'; workerConnections: number; http: string; modules?: readonly string[] }): string {
  return `${(options.modules ?? []).map((module) => `load_module ${module};\n`).join('')}daemon off;
user root;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log ${options.errorLevel};
events { worker_connections ${options.workerConnections}; }
http {
  access_log off;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy;
${options.http}}
`;
}

/** The S3 host the shipped deploy/nginx/marquee-cdn.conf names, in its upstream, its Host and its TLS name. */
const SHIPPED_S3_HOST = 'acme-marquee.s3.eu-central-1.amazonaws.com';

/**
 * The shipped deploy/nginx/marquee-cdn.conf (`shipped`) with only this machine's parts changed:
 * the store's address (`store`, host:port of an s3rver, which speaks plain HTTP), the bucket the
 * Host names (s3rver reads the bucket from Host, as S3 does), the port and the cache's directory.
 * Every other line runs as shipped; a line the substitution no longer finds is an error, so that
 * the tests follow the file.
 */
export function shippedCdnSite(shipped: string, machine: { store: string; bucket: string; port: number; cacheDirectory: string }): string {
  const replacements: Array<[string, string]> = [
    [`server ${SHIPPED_S3_HOST}:443;`, `server ${machine.store};`],
    ['proxy_pass https://marquee_store;', 'proxy_pass http://marquee_store;'],
    ['listen 8090;', `listen 127.0.0.1:${machine.port};`],
    ['/var/cache/nginx/marquee', machine.cacheDirectory],
    [SHIPPED_S3_HOST, `${machine.bucket}.s3.eu-central-1.amazonaws.com`],
  ];
  let site = shipped;
  for (const [from, to] of replacements) {
    if (!site.includes(from)) throw new Error(`deploy/nginx/marquee-cdn.conf no longer holds ${JSON.stringify(from)}: the test's substitution must follow it`);
    site = site.replaceAll(from, to);
  }
  return site;
}
