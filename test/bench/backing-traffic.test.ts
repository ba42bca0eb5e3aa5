import { describe, expect, it } from 'bun:test'
import { parseSocketCounters } from '../../bench/lib/backing-traffic'

// Two connections to one port as `ss -tinpH` prints them: one of a node (pid 4242), one of another process.
const output = [
  '0      0      127.0.0.1:60988 127.0.0.1:38999 users:(("bun",pid=4242,fd=5))',
  '\t bbr wscale:10,10 rto:204 rtt:0.017/0.006 mss:32768 cwnd:18 bytes_sent:1316 bytes_acked:1317 bytes_received:202 segs_out:15 segs_in:14 data_segs_out:12 data_segs_in:11 send 277564235294bps',
  '0      0      127.0.0.1:60990 127.0.0.1:38999 users:(("psql",pid=777,fd=3))',
  '\t bbr wscale:10,10 rto:204 bytes_sent:99 bytes_acked:100 bytes_received:99 data_segs_out:9 data_segs_in:9',
  '',
].join('\n')

describe('parseSocketCounters', () => {
  it("reads the bytes and data segments of each of the given processes' connections, by local address", () => {
    expect([...parseSocketCounters(output, new Set([4242]))]).toEqual([
      ['127.0.0.1:60988', { bytesSent: 1316, bytesReceived: 202, writes: 12, reads: 11 }],
    ])
    expect(parseSocketCounters(output, new Set([1])).size).toBe(0)
  })

  it('falls back to the bytes acknowledged where the kernel does not report the bytes sent', () => {
    const older = output.replace('bytes_sent:1316 ', '')
    expect(parseSocketCounters(older, new Set([4242])).get('127.0.0.1:60988')?.bytesSent).toBe(1317)
  })
})
