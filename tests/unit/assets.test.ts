import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { AssetSigner } from '../../server/assets.js';

describe('AssetSigner', () => {
  test('every token opens to what it was made from, whatever characters the signature holds', () => {
    const signer = new AssetSigner('secret');
    for (let i = 0; i < 500; i++) {
      const code = `CODE-${i}-${'_-'.repeat(i % 3)}`;
      expect(signer.open('qr', signer.token('qr', `proj_${i}`, code))).toEqual({ projectId: `proj_${i}`, code });
    }
  });

  test('a token of another kind, another secret, or altered is refused', () => {
    const signer = new AssetSigner('secret');
    const token = signer.token('qr', 'proj_a', 'CODE');
    expect(signer.open('barcode', token)).toBeUndefined();
    expect(new AssetSigner('other').open('qr', token)).toBeUndefined();
    expect(signer.open('qr', `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    expect(signer.open('qr', 'short')).toBeUndefined();
  });

  test('when any secret signs any code, then the signature is HMAC-SHA-256 of the payload, as the library computes it', () => {
    // Secrets shorter and longer than SHA-256's 64-byte block (a longer key is hashed first), in any characters.
    fc.assert(
      fc.property(fc.oneof(fc.string({ minLength: 1, maxLength: 64, unit: 'binary' }), fc.string({ minLength: 65, maxLength: 200, unit: 'binary' })), fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('qr' as const, 'barcode' as const), (secret, code, kind) => {
        const token = new AssetSigner(secret).token(kind, 'proj_a', code);
        const payload = token.slice(kind.length + 1, token.length - 23);
        const expected = createHmac('sha256', Buffer.from(secret)).update(payload).digest('base64url').slice(0, 22);
        expect(token).toBe(`${kind}-${payload}_${expected}`);
      }),
    );
  });

  test('when one signer signs codes of any length and characters in turn, then each token is the one the library signs and it opens', () => {
    // One signer for every run: its buffers are written over by each token and grow past their first size.
    const signer = new AssetSigner('shared secret');
    fc.assert(
      fc.property(fc.string({ maxLength: 400, unit: 'grapheme', size: 'max' }), fc.constantFrom('qr' as const, 'barcode' as const), (tail, kind) => {
        const code = `C${tail}`;
        const token = signer.token(kind, 'proj_a', code);
        const payload = Buffer.from(JSON.stringify(['proj_a', code])).toString('base64url');
        const expected = createHmac('sha256', 'shared secret').update(payload).digest('base64url').slice(0, 22);
        expect(token).toBe(`${kind}-${payload}_${expected}`);
        expect(signer.open(kind, token)).toEqual({ projectId: 'proj_a', code });
      }),
      { numRuns: 300 },
    );
  });

  test("a voucher's two asset IDs differ, each opens as its own kind only, and each URL ends with its ID", () => {
    const signer = new AssetSigner('secret');
    const { qr, barcode } = signer.assets('proj_a', 'CODE-1', 'https://api.example');
    expect(qr.id).not.toBe(barcode.id);
    expect(qr.url).toBe(`https://api.example/assets/qr/${qr.id}`);
    expect(barcode.url).toBe(`https://api.example/assets/barcode/${barcode.id}`);
    expect(signer.open('qr', qr.id)).toEqual({ projectId: 'proj_a', code: 'CODE-1' });
    expect(signer.open('barcode', barcode.id)).toEqual({ projectId: 'proj_a', code: 'CODE-1' });
    expect(signer.open('barcode', qr.id)).toBeUndefined();
    expect(signer.open('qr', barcode.id)).toBeUndefined();
    // The same again comes from the signer's recent tokens.
    expect(signer.assets('proj_a', 'CODE-1', 'https://api.example')).toEqual({ qr, barcode });
  });

  test('a token made before one signature served both kinds (the kind inside its payload) still opens, as its kind only', () => {
    const signer = new AssetSigner('secret');
    const earlier = (kind: string, projectId: string, code: string) => {
      const payload = Buffer.from(JSON.stringify([kind, projectId, code])).toString('base64url');
      return `${payload}_${createHmac('sha256', 'secret').update(payload).digest('base64url').slice(0, 22)}`;
    };
    expect(signer.open('qr', earlier('qr', 'proj_a', 'CODE'))).toEqual({ projectId: 'proj_a', code: 'CODE' });
    expect(signer.open('barcode', earlier('barcode', 'proj_a', 'CODE'))).toEqual({ projectId: 'proj_a', code: 'CODE' });
    expect(signer.open('barcode', earlier('qr', 'proj_a', 'CODE'))).toBeUndefined();
    // A signed payload of the wrong length or with a field that is not text is refused, whichever way it is named.
    expect(signer.open('qr', earlier('qr', 'proj_a', 'CODE').replace(/^/, 'qr-'))).toBeUndefined();
    const signedPair = (fields: unknown[]) => {
      const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
      return `${payload}_${createHmac('sha256', 'secret').update(payload).digest('base64url').slice(0, 22)}`;
    };
    expect(signer.open('qr', `qr-${signedPair(['proj_a', 7])}`)).toBeUndefined();
    expect(signer.open('qr', signedPair(['qr', 'proj_a']))).toBeUndefined();
  });
});
