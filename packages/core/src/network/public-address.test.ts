import { describe, expect, it } from 'vitest';
import { fakeResolver } from '../testing/deps';
import { webhookUrlProblem } from '../agents/webhook-config';
import { checkPublicHost, nonPublicReason } from './public-address';

describe('public address rule', () => {
  it.each([
    ['127.0.0.1', 'is a loopback address'],
    ['10.255.255.255', 'is a private address'],
    ['172.31.0.1', 'is a private address'],
    ['192.168.0.1', 'is a private address'],
    ['169.254.169.254', 'is a link-local address'],
    ['100.127.255.254', 'is a carrier-grade NAT address'],
    ['0.0.0.0', 'is an unspecified address'],
    ['224.0.0.1', 'is a multicast address'],
    ['255.255.255.255', 'is a broadcast address'],
    ['::1', 'is a loopback address'],
    ['::', 'is an unspecified address'],
    ['fe80::1', 'is a link-local address'],
    ['fd12:3456::1', 'is a unique-local address'],
    ['::ffff:10.0.0.1', 'is a private address'],
    ['::ffff:169.254.169.254', 'is a link-local address'],
  ])('refuses %s', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1', '100.128.0.1'])(
    'accepts %s',
    (address) => {
      expect(nonPublicReason(address)).toBeNull();
    },
  );

  it('checks every address a name resolves to, and refuses names that do not resolve', async () => {
    const resolve = fakeResolver({
      'split.example': ['8.8.8.8', '::1'],
      'ok.example': ['8.8.8.8', '2606:4700::1'],
    });
    expect(await checkPublicHost('split.example', resolve)).toMatchObject({
      ok: false,
      reason: 'split.example resolves to ::1, which is a loopback address',
    });
    expect(await checkPublicHost('ok.example', resolve)).toEqual({
      ok: true,
      addresses: ['8.8.8.8', '2606:4700::1'],
    });
    expect(await checkPublicHost('gone.invalid', resolve)).toMatchObject({
      ok: false,
      reason: 'gone.invalid does not resolve',
      unresolved: true,
    });
    expect(await checkPublicHost('LOCALHOST.', resolve)).toMatchObject({
      ok: false,
      reason: 'localhost is a loopback name',
    });
    expect(await checkPublicHost('api.localhost', resolve)).toMatchObject({ ok: false });
  });

  it('lets only allow-listed hosts skip the rule (development and tests)', async () => {
    const deps = {
      resolveHost: fakeResolver(),
      config: { jwtSecret: 'x', secretsKey: 'x', webhookAllowedHosts: ['127.0.0.1:8443'] },
    };
    expect(await webhookUrlProblem(deps, 'http://127.0.0.1:8443/hook')).toBeNull();
    // Not resolvable now (no DNS, an outage): stored, and checked again at every delivery.
    expect(await webhookUrlProblem(deps, 'https://example.com/hook')).toBeNull();
    expect(await webhookUrlProblem(deps, 'https://127.0.0.1:9999/hook')).toMatch(/loopback/);
    expect(await webhookUrlProblem(deps, 'ftp://127.0.0.1:8443/hook')).toBe('url must use https');
    expect(await webhookUrlProblem(deps, 'https://user@127.0.0.1:8443/hook')).toBe(
      'url must not contain credentials',
    );
  });
});
