import { describe, expect, test } from '@jest/globals';
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
});
