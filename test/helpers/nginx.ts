import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../harness/server-process'
import { programAvailable } from './programs'

const NGINX = '/usr/sbin/nginx'
/** Missing, the load balancer tests skip here and fail in CI (`CI=true`). */
export const nginxAvailable = programAvailable('nginx', existsSync(NGINX), 'apt-get install -y nginx-light')

const running = new Set<ChildProcess>()
// TERM: nginx's fast stop, which also ends its worker processes.
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM')
})

export interface LoadBalancer {
  url: string
  stop(): Promise<void>
}

/**
 * Runs the compose profile's nginx configuration (`deploy/scale-out/nginx.conf`) in front of `upstreams`, in a
 * temp folder on a free port. The configuration is used as written but for what only Docker provides: the node
 * names become the given addresses, the listen address a local port, and Docker's DNS resolver (with the `resolve`
 * flag that needs it, and nginx 1.27.3 or later) is left out.
 */
export async function startLoadBalancer(configFile: string, upstreams: Record<string, string>): Promise<LoadBalancer> {
  const folder = mkdtempSync(join(tmpdir(), 'test-nginx-'))
  const port = await freePort()
  let config = readFileSync(configFile, 'utf8')
    .replace(/^\s*resolver\s[^;]*;\s*$/m, '')
    .replace(/\s+resolve(?=[\s;])/g, '')
    .replace(/^(\s*)listen\s+80;/m, `$1listen 127.0.0.1:${port};`)
  for (const [name, address] of Object.entries(upstreams)) {
    const pattern = new RegExp(`(\\bserver\\s+)${name}:\\d+`)
    if (!pattern.test(config)) throw new Error(`${configFile} has no upstream server ${name}`)
    config = config.replace(pattern, `$1${address}`)
  }
  const temp = (name: string) => `${name}_temp_path ${join(folder, name)};`
  writeFileSync(
    join(folder, 'nginx.conf'),
    `daemon off;
user root;
worker_processes 1;
pid ${join(folder, 'nginx.pid')};
error_log ${join(folder, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
${config}
}
`,
  )
  const check = spawnSync(NGINX, ['-t', '-p', folder, '-c', join(folder, 'nginx.conf')], { encoding: 'utf8' })
  if (check.status !== 0) {
    rmSync(folder, { recursive: true, force: true })
    throw new Error(`nginx refuses the configuration: ${check.stderr}`)
  }
  const child: ChildProcess = spawn(NGINX, ['-p', folder, '-c', join(folder, 'nginx.conf')], { stdio: 'ignore' })
  running.add(child)
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      // QUIT: nginx's graceful stop, which also stops its worker processes.
      child.kill('SIGQUIT')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    }
    running.delete(child)
    rmSync(folder, { recursive: true, force: true })
  }
  const deadline = Date.now() + 20_000
  for (;;) {
    const up = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    )
    if (up) return { url, stop }
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = existsSync(join(folder, 'error.log')) ? readFileSync(join(folder, 'error.log'), 'utf8') : ''
      await stop()
      throw new Error(`nginx did not start: ${log}`)
    }
    await Bun.sleep(50)
  }
}
