import { describe, expect, it } from 'bun:test'
import { frontPageUrl } from '../../src/front-page-url'

describe('frontPageUrl', () => {
  it('names the front page on localhost when the server listens on every address', () => {
    expect(frontPageUrl('0.0.0.0', 4000)).toBe('http://localhost:4000/')
    expect(frontPageUrl('::', 4000)).toBe('http://localhost:4000/')
  })

  it('names the address listened on otherwise, an IPv6 one in brackets', () => {
    expect(frontPageUrl('127.0.0.1', 8080)).toBe('http://127.0.0.1:8080/')
    expect(frontPageUrl('::1', 8080)).toBe('http://[::1]:8080/')
  })
})
