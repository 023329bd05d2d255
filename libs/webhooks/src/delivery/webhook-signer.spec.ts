import { signatureHeader, signWebhook } from './webhook-signer';

describe('webhook signature', () => {
  it('is the hex HMAC-SHA256 of "<timestamp>.<body>" keyed with the whole secret, prefix included', () => {
    // Reference value computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_test'
    expect(signWebhook('whsec_test', 1_700_000_000, '{"a":1}')).toBe(REFERENCE);
  });

  it('carries one v1= per secret, newest first', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], 1_700_000_000, '{}');
    expect(header).toBe(`v1=${signWebhook('whsec_new', 1_700_000_000, '{}')} v1=${signWebhook('whsec_old', 1_700_000_000, '{}')}`);
  });
});

const REFERENCE = '38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789';
