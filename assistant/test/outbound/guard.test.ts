// The outbound guard's decision, through check() with a stubbed DNS lookup: no name is ever resolved for real and no
// packet is sent. Every refusal class, the IP literal tricks, the allow list and the protected endpoints.
import { describe, expect, it } from 'vitest';
import { AssistantInputError } from '../../src/errors';
import { createOutboundGuard, type OutboundGuardOptions, type ResolvedAddress } from '../../src/outbound';

/** A DNS stub: names to addresses; anything else is ENOTFOUND. Records every name asked. */
function stubLookup(table: Record<string, string[]>) {
  const asked: string[] = [];
  const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, asked };
}

function guardWith(table: Record<string, string[]>, options: Partial<OutboundGuardOptions> = {}) {
  const dns = stubLookup(table);
  return { guard: createOutboundGuard({ protect: [], lookup: dns.lookup, ...options }), asked: dns.asked };
}

async function reason(guard: ReturnType<typeof createOutboundGuard>, url: string): Promise<string> {
  const decision = await guard.check(url);
  if (decision.allowed) throw new Error(`expected ${url} to be refused`);
  expect(decision.field).toBe('url');
  return decision.reason;
}

describe('check: the URL itself', () => {
  const { guard } = guardWith({ 'example.com': ['93.184.215.14'] });

  it('allows a public https or http URL and returns the addresses it resolved to', async () => {
    const decision = await guard.check('https://example.com/page?q=1');
    expect(decision).toMatchObject({ allowed: true, addresses: [{ address: '93.184.215.14', family: 4 }] });
    expect(decision.allowed && decision.url.href).toBe('https://example.com/page?q=1');
    expect((await guard.check('http://EXAMPLE.com./')).allowed).toBe(true);
  });
  it('refuses what is not an absolute URL', async () => {
    expect(await reason(guard, 'example.com/page')).toBe(
      '"example.com/page" is not an absolute URL; give a full address such as https://example.com/page',
    );
    expect(await reason(guard, '')).toBe('no URL was given');
    expect(await reason(guard, 'http://exa mple.com/')).toMatch(/not an absolute URL/);
  });
  it('refuses every scheme but http and https', async () => {
    expect(await reason(guard, 'ftp://example.com/file')).toBe('only http and https URLs can be fetched, not ftp URLs');
    for (const url of ['file:///etc/passwd', 'gopher://example.com/', 'javascript:alert(1)', 'data:text/plain,hi']) {
      expect(await reason(guard, url)).toMatch(/^only http and https URLs can be fetched/);
    }
  });
  it('refuses credentials in the URL', async () => {
    expect(await reason(guard, 'http://user:secret@example.com/')).toMatch(/user name or password/);
    expect(await reason(guard, 'https://user@example.com/')).toMatch(/user name or password/);
  });
  it('refuses a host that does not resolve', async () => {
    expect(await reason(guard, 'https://nowhere.invalid/')).toBe(
      'the host nowhere.invalid could not be resolved (ENOTFOUND)',
    );
  });
});

describe('check: every resolved address must be public', () => {
  const cases: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.5.6.7', /loopback/],
    ['::1', /loopback/],
    ['10.0.0.5', /a private address; outbound requests to private networks are refused/],
    ['172.16.3.4', /private address/],
    ['172.31.255.255', /private address/],
    ['192.168.1.1', /private address/],
    ['fc00::1', /unique local/],
    ['fd12:3456::1', /unique local/],
    ['169.254.1.1', /link-local/],
    ['fe80::1', /link-local/],
    ['169.254.169.254', /cloud metadata service.*requests to cloud metadata services are refused/],
    ['fd00:ec2::254', /metadata/],
    ['100.100.100.200', /metadata/],
    ['168.63.129.16', /metadata|WireServer/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['::', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['ff02::1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.254', /carrier-grade NAT/],
    ['240.0.0.1', /reserved/],
    ['192.0.2.10', /reserved/],
    ['198.18.0.1', /reserved/],
    ['2001:db8::1', /reserved/],
    ['::ffff:10.0.0.1', /10\.0\.0\.1, a private address/],
    ['::ffff:169.254.169.254', /169\.254\.169\.254, the cloud metadata/],
    ['64:ff9b::a00:1', /private address/],
  ];
  const table = Object.fromEntries(cases.map(([address], i) => [`host${i}.example`, [address]]));
  const { guard } = guardWith(table);

  it.each(cases.map(([address, expected], i) => [address, expected, i] as const))(
    'refuses a name resolving to %s',
    async (address, expected, i) => {
      const text = await reason(guard, `https://host${i}.example/`);
      expect(text).toMatch(expected);
      expect(text).toMatch(/^host\d+\.example resolves to /);
    },
  );
  it('says which address and why, in a sentence a model can relay', async () => {
    const { guard } = guardWith({ 'intranet.example': ['10.0.0.5'] });
    expect(await reason(guard, 'http://intranet.example/')).toBe(
      'intranet.example resolves to 10.0.0.5, a private address; outbound requests to private networks are refused',
    );
  });
  it('refuses a name when any one of its addresses is not public', async () => {
    const { guard } = guardWith({
      'mixed.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '10.1.1.1'],
    });
    expect(await reason(guard, 'https://mixed.example/')).toMatch(/10\.1\.1\.1, a private address/);
  });
  it('allows the public neighbours of the refused ranges', async () => {
    const publics = ['172.32.0.1', '172.15.255.255', '100.128.0.1', '11.0.0.1', '169.253.1.1', '2606:4700::1111'];
    const { guard } = guardWith({ 'ok.example': publics });
    const decision = await guard.check('https://ok.example/');
    expect(decision.allowed).toBe(true);
    expect(decision.allowed && decision.addresses.map((entry) => entry.address)).toEqual(publics);
  });
  it('allows a public NAT64 address and an IPv4-mapped public address', async () => {
    const { guard } = guardWith({ 'v6.example': ['64:ff9b::5db8:d70e', '::ffff:93.184.215.14'] });
    expect((await guard.check('https://v6.example/')).allowed).toBe(true);
  });
});

describe('check: IP literals, in every form the URL parser accepts', () => {
  const { guard, asked } = guardWith({});
  const literals: Array<[string, RegExp]> = [
    ['http://127.0.0.1/', /^127\.0\.0\.1 is a loopback address/],
    ['http://2130706433/', /^127\.0\.0\.1 is a loopback/],
    ['http://0x7f.1/', /^127\.0\.0\.1 is a loopback/],
    ['http://0177.0.0.1/', /^127\.0\.0\.1 is a loopback/],
    ['http://127.1/', /^127\.0\.0\.1 is a loopback/],
    ['http://0x7f000001/', /^127\.0\.0\.1 is a loopback/],
    ['http://[::1]/', /^::1 is a loopback/],
    ['http://[::ffff:127.0.0.1]/', /^127\.0\.0\.1 is a loopback/],
    ['http://[::ffff:7f00:1]:8080/', /^127\.0\.0\.1 is a loopback/],
    ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/', /^169\.254\.169\.254 is the cloud metadata/],
    ['http://169.254.169.254/latest/meta-data/', /^169\.254\.169\.254 is the cloud metadata/],
    ['http://0xa9.0xfe.0xa9.0xfe/', /^169\.254\.169\.254 is the cloud metadata/],
    ['http://2852039166/', /^169\.254\.169\.254 is the cloud metadata/],
    ['http://[fd00:ec2::254]/', /^fd00:ec2::254 is AWS's IPv6 metadata/],
    ['http://0/', /^0\.0\.0\.0 is an unspecified address/],
    ['http://[::]/', /^:: is an unspecified address/],
    ['http://10.1/', /^10\.0\.0\.1 is a private address/],
    ['http://0xc0a80001/', /^192\.168\.0\.1 is a private address/],
    ['https://[fe80::1]/', /^fe80::1 is a link-local/],
  ];
  it.each(literals)('refuses %s', async (url, expected) => {
    expect(await reason(guard, url)).toMatch(expected);
  });
  it('allows a public literal and never asks DNS about a literal', async () => {
    expect(await guard.check('http://93.184.215.14/')).toMatchObject({ allowed: true });
    expect(await guard.check('http://[2606:4700::1111]/')).toMatchObject({
      allowed: true,
      addresses: [{ address: '2606:4700::1111', family: 6 }],
    });
    expect(asked).toEqual([]);
  });
});

describe('check: the allow list (ASSISTANT_OUTBOUND_ALLOW)', () => {
  const table = {
    localhost: ['127.0.0.1', '::1'],
    'only-v4.localhost': ['127.0.0.1'],
    'metadata.internal': ['169.254.169.254'],
    'svc.internal': ['10.2.3.4'],
  };

  it('lets a host name through on the listed port only', async () => {
    const { guard } = guardWith(table, { allow: ['localhost:8080'] });
    expect(await guard.check('http://localhost:8080/x')).toMatchObject({ allowed: true });
    expect(await guard.check('http://LOCALHOST.:8080/x')).toMatchObject({ allowed: true });
    expect(await reason(guard, 'http://localhost:8081/')).toMatch(/^localhost resolves to 127\.0\.0\.1, a loopback/);
    expect(await reason(guard, 'http://localhost/')).toMatch(/loopback/);
  });
  it('lets a literal address through, in whatever form the URL writes it', async () => {
    const { guard } = guardWith(table, { allow: ['127.0.0.1:3000', '[::1]:9000'] });
    for (const url of ['http://127.0.0.1:3000/', 'http://2130706433:3000/', 'http://0x7f.1:3000/']) {
      expect(await guard.check(url), url).toMatchObject({ allowed: true });
    }
    expect(await guard.check('http://[::1]:9000/')).toMatchObject({ allowed: true });
    expect(await guard.check('http://[::ffff:127.0.0.1]:3000/')).toMatchObject({ allowed: true });
    expect(await reason(guard, 'http://127.0.0.2:3000/')).toMatch(/loopback/);
    expect(await reason(guard, 'http://127.0.0.1:9000/')).toMatch(/loopback/);
  });
  it('lets a name through when every address it resolves to is listed with the port', async () => {
    const { guard } = guardWith(table, { allow: ['127.0.0.1:3000'] });
    expect(await guard.check('http://only-v4.localhost:3000/')).toMatchObject({ allowed: true });
    expect(await reason(guard, 'http://localhost:3000/')).toMatch(/^localhost resolves to ::1/);
  });
  it('lets a private service through by name', async () => {
    const { guard } = guardWith(table, { allow: ['svc.internal:443'] });
    expect(await guard.check('https://svc.internal/')).toMatchObject({ allowed: true });
    expect(await reason(guard, 'http://svc.internal/')).toMatch(/private/);
  });
  it('never lets a cloud metadata address through by a host name, only by the address itself', async () => {
    const byName = guardWith(table, { allow: ['metadata.internal:80'] }).guard;
    expect(await reason(byName, 'http://metadata.internal/')).toMatch(/cloud metadata/);
    const byAddress = guardWith(table, { allow: ['169.254.169.254:80'] }).guard;
    expect(await byAddress.check('http://169.254.169.254/')).toMatchObject({ allowed: true });
  });
  it('refuses a malformed allow entry, naming it', () => {
    expect(() => createOutboundGuard({ protect: [], allow: ['localhost'] })).toThrow(AssistantInputError);
    expect(() => createOutboundGuard({ protect: [], allow: ['localhost'] })).toThrow(/^allow: "localhost" is not/);
  });
});

describe('check: the protected endpoints are never reachable', () => {
  const n8n = { host: '127.0.0.1', port: 5678, name: "the n8n instance's own API" };
  const judge = { host: 'judge.internal', port: 8000, name: 'the judge' };
  const table = {
    localhost: ['127.0.0.1', '::1'],
    'judge.internal': ['10.9.8.7'],
    'rebind.example': ['127.0.0.1'],
    'judge-alias.example': ['10.9.8.7'],
  };
  const allow = [
    '127.0.0.1:5678',
    'localhost:5678',
    '[::1]:5678',
    '127.0.0.2:5678',
    '0.0.0.0:5678',
    'rebind.example:5678',
    '10.9.8.7:8000',
    'judge.internal:8000',
    'judge-alias.example:8000',
    '127.0.0.1:5679',
  ];
  const { guard } = guardWith(table, { allow, protect: [n8n, judge] });

  it.each([
    'http://127.0.0.1:5678/api/v1/workflows',
    'http://localhost:5678/',
    'http://[::1]:5678/',
    'http://[::ffff:127.0.0.1]:5678/',
    'http://2130706433:5678/',
    'http://127.0.0.2:5678/',
    'http://0.0.0.0:5678/',
    'http://rebind.example:5678/',
  ])('refuses %s (the n8n API) even though it is allowed', async (url) => {
    expect(await reason(guard, url)).toMatch(/is the n8n instance's own API, which can never be reached from here$/);
  });
  it.each(['http://judge.internal:8000/v1/judge', 'http://10.9.8.7:8000/', 'http://judge-alias.example:8000/'])(
    'refuses %s (the judge) even though it is allowed',
    async (url) => {
      expect(await reason(guard, url)).toMatch(/is the judge, which can never be reached from here$/);
    },
  );
  it('still allows another allowed port on the same host', async () => {
    expect(await guard.check('http://127.0.0.1:5679/')).toMatchObject({ allowed: true });
  });
  it('treats localhost as the same host as 127.0.0.1 and ::1 when protecting by name', async () => {
    const { guard } = guardWith(table, {
      allow: ['127.0.0.1:5678', '[::1]:5678'],
      protect: [{ host: 'localhost', port: 5678 }],
    });
    expect(await reason(guard, 'http://127.0.0.1:5678/')).toMatch(/a protected service/);
    expect(await reason(guard, 'http://[::1]:5678/')).toMatch(/a protected service/);
  });
  it('refuses a malformed protected endpoint, naming it', () => {
    expect(() => createOutboundGuard({ protect: [{ host: 'localhost', port: 0 }] })).toThrow(/^protect\[0\]: /);
    expect(() => createOutboundGuard({ protect: [{ host: '', port: 80 }] })).toThrow(/^protect\[0\]: needs a host/);
    expect(() => createOutboundGuard({ protect: [], maxRedirects: -1 })).toThrow(/^maxRedirects: /);
  });
});
