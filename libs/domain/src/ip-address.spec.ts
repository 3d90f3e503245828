import { parseIp } from './ip-address';

describe('parseIp', () => {
  it.each([
    ['8.8.8.8', '8.8.8.8'],
    ['008.008.008.008', '8.8.8.8'],
    [' 73.12.1.9 , 10.0.0.1', '73.12.1.9'],
    ['2606:4700:0000:0000:0000:0000:0000:1111', '2606:4700::1111'],
    ['2606:4700::ABCD', '2606:4700::abcd'],
    ['::ffff:8.8.4.4', '8.8.4.4'],
    ['::FFFF:0808:0404', '8.8.4.4'],
  ])('accepts %s as public %s', (input, normalized) => {
    expect(parseIp(input)).toEqual(expect.objectContaining({ normalized, publicUnicast: true }));
  });

  it.each([
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '127.0.0.1',
    '169.254.0.1',
    '224.0.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '192.0.2.1',
    '198.51.100.1',
    '203.0.113.1',
    '198.18.0.1',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12::1',
    'ff02::1',
    '2001:db8::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '2002::1',
    '2001::1',
  ])('marks %s as special-purpose', (input) => {
    expect(parseIp(input)?.publicUnicast).toBe(false);
  });

  it.each(['', 'abc', '1.2.3', '1.2.3.256', '0x8.8.8.8', '8', '1.2.3.4.5', 'fe80::1%eth0', ':::1', '1.2.3.4/24'])('rejects %j', (input) => {
    expect(parseIp(input)).toBeUndefined();
  });
});
