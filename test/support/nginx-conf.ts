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
