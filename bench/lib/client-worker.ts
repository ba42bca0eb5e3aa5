/**
 * A client process for the scenarios that need more streams than one process reads comfortably (10,000 held
 * streams, 1,000 joiners). It prints `ready`, reads one JSON job from stdin, runs it and prints one JSON result.
 * Run by `workers.ts`, never on its own.
 */
import { lineRecorder, postTurn } from './ndjson-client'
import { rawPost } from './raw-http'
import { wallMs } from './stats'
import type { BurstJob, BurstTurn, HoldJob, HoldResult, JoinJob, JoinerResult, WorkerJob } from './worker-jobs'

async function hold(job: HoldJob): Promise<HoldResult> {
  const result: HoldResult = { completed: 0, failures: 0, failureSamples: [], maxMs: 0 }
  const one = async (index: number) => {
    await Bun.sleep(Math.max(0, job.startAt + (index * job.rampMs) / job.total - wallMs()))
    const body = JSON.stringify({
      input: 'Hold this stream open',
      messageId: `${job.messageIdBase}${String(index).padStart(6, '0')}-message`,
      sessionSettings: { externalId: `${job.userPrefix}${index % job.users}` },
    })
    const outcome = await postTurn(job.url, job.headers, body)
    if (outcome.ok) result.completed++
    else {
      result.failures++
      if (outcome.failure && result.failureSamples.length < 5 && !result.failureSamples.includes(outcome.failure))
        result.failureSamples.push(outcome.failure)
    }
    result.maxMs = Math.max(result.maxMs, outcome.totalMs)
  }
  const indexes = Array.from({ length: job.count }, (_, k) => job.offset + k)
  await Promise.all(indexes.map(one))
  return result
}

/** Every turn of the burst, sent at once: status, whether it completed, and its time. */
async function burst(job: BurstJob): Promise<BurstTurn[]> {
  await Bun.sleep(Math.max(0, job.startAt - wallMs()))
  return Promise.all(
    job.bodies.map(async (body) => {
      const outcome = await postTurn(job.url, job.headers, body)
      return { status: outcome.status ?? 0, ok: outcome.ok, failure: outcome.failure, ms: outcome.totalMs }
    }),
  )
}

/** One joiner: the arrival time of every line, and a digest of everything after its own `__cutoff__`. */
async function join(job: JoinJob, index: number): Promise<JoinerResult> {
  await Bun.sleep(Math.max(0, job.startAt + (index * job.spreadMs) / job.count - wallMs()))
  const recorder = lineRecorder()
  const { times } = recorder
  try {
    const response = await rawPost(job.url, job.headers, job.body, recorder.chunk, wallMs)
    if (response.status !== 200) return { ok: false, failure: `HTTP ${response.status}`, times, digest: '' }
    return { ok: true, times, digest: recorder.digest() }
  } catch (error) {
    return { ok: false, failure: `network: ${(error as Error).message}`, times, digest: '' }
  }
}

async function main() {
  process.stdout.write('ready\n')
  let text = ''
  for await (const chunk of Bun.stdin.stream()) {
    text += new TextDecoder().decode(chunk)
    if (text.includes('\n')) break
  }
  const job = JSON.parse(text.slice(0, text.indexOf('\n'))) as WorkerJob
  const result =
    job.kind === 'hold'
      ? await hold(job)
      : job.kind === 'burst'
        ? await burst(job)
        : await Promise.all(Array.from({ length: job.count }, (_, k) => join(job, k)))
  // Bun.write resolves once every byte is out; process.exit right after a large write() could cut it short.
  await Bun.write(Bun.stdout, `${JSON.stringify(result)}\n`)
  process.exit(0)
}

void main()
