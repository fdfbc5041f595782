import { describe, expect, it } from 'vitest';
import { parseAuthorization } from './authorization.js';

const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('parseAuthorization', () => {
  it('reads no header as none', () => {
    expect(parseAuthorization(undefined)).toEqual({ scheme: 'none' });
    expect(parseAuthorization('')).toEqual({ scheme: 'none' });
  });

  it('reads a bearer token, the scheme in any case, the token trimmed', () => {
    expect(parseAuthorization('Bearer abc.def.ghi')).toEqual({ scheme: 'bearer', token: 'abc.def.ghi' });
    expect(parseAuthorization('bEaReR   abc  ')).toEqual({ scheme: 'bearer', token: 'abc' });
    expect(parseAuthorization('Bearer')).toEqual({ scheme: 'bearer', token: '' });
  });

  it('decodes Basic client credentials; a secret may contain colons', () => {
    expect(parseAuthorization(basic('client-1:s3:cr:et'))).toEqual({ scheme: 'basic', credentials: { clientId: 'client-1', clientSecret: 's3:cr:et' } });
    expect(parseAuthorization(basic('client-1:'))).toEqual({ scheme: 'basic', credentials: { clientId: 'client-1', clientSecret: '' } });
  });

  it('leaves Basic without a usable id:secret without credentials', () => {
    expect(parseAuthorization(basic('no-colon'))).toEqual({ scheme: 'basic' });
    expect(parseAuthorization(basic(':secret-without-id'))).toEqual({ scheme: 'basic' });
    expect(parseAuthorization('Basic')).toEqual({ scheme: 'basic' });
  });

  it('names any other scheme', () => {
    expect(parseAuthorization('Digest realm="x"')).toEqual({ scheme: 'other', name: 'digest' });
    expect(parseAuthorization('abc.def.ghi')).toEqual({ scheme: 'other', name: 'abc.def.ghi' });
  });
});
