import { expect } from 'chai';
import type { HttpError } from '../../../../edge/http/errors';
import { compileValidator } from '../../../../edge/http/validation';
import { optionalWebAddress, webAddress } from '../../../../edge/http/web-address';

describe('edge: web address schema fragment (http and https only)', () => {
  const validate = compileValidator(
    { type: 'object', properties: { required: webAddress(255), optional: optionalWebAddress(255) } },
    'body',
  );
  const refusal = (body: Record<string, unknown>): HttpError | null => {
    try {
      validate(body);
      return null;
    } catch (error) {
      return error as HttpError;
    }
  };

  it('accepts http and https URLs with a host, in any scheme case', () => {
    for (const url of ['https://acme.example.com', 'http://acme.example.com/about?x=1#top', 'HTTPS://ACME.EXAMPLE.COM', 'https://[2001:db8::1]:8443/']) {
      expect(refusal({ required: url, optional: url }), url).to.equal(null);
    }
  });

  it('refuses every other scheme, and an http URL without a host, naming the field', () => {
    const bad = ['javascript:alert(1)', 'JavaScript:alert(document.cookie)', 'vbscript:msgbox(1)', 'data:text/html,<script>1</script>', 'ftp://acme.example.com', 'file:///etc/passwd', 'http://', 'https:///path', 'not a uri'];
    for (const url of bad) {
      const required = refusal({ required: url });
      expect(required?.code, url).to.equal('validation_failed');
      expect(required?.options.param, url).to.equal('body.required');
      const optional = refusal({ optional: url });
      expect(optional?.options.param, url).to.equal('body.optional');
      expect(optional?.message, url).to.not.include('constant');
    }
  });

  it('the optional form takes the empty string and defaults to it', () => {
    expect(refusal({ optional: '' })).to.equal(null);
    expect(validate({})).to.deep.equal({ optional: '' });
    expect(refusal({ optional: `https://acme.example.com/${'a'.repeat(255)}` })?.options.param).to.equal('body.optional');
  });
});
