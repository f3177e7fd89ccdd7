/**
 * Voucher code images. Asset IDs are signed tokens naming the kind of image, the project and the code, so the
 * image URLs work without credentials but cannot be made up from a code.
 */
import * as crypto from 'node:crypto';
import bwipjs from 'bwip-js';
import QRCode from 'qrcode';

export type AssetKind = 'qr' | 'barcode';
const KINDS: readonly AssetKind[] = ['qr', 'barcode'];

/** A token of one kind: the kind in front of the signed project and code. */
const named = (kind: AssetKind, signed: string) => `${kind}-${signed}`;

const SIGNATURE_LENGTH = 22;
/** How many codes' tokens `assets` keeps (about 200 bytes each). */
const RECENT_TOKENS = 10_000;

/** Node.js's one-shot digest (from 20.12 and 21.7; undefined before). */
const oneShotHash = (crypto as unknown as { hash?: (algorithm: string, data: Buffer, encoding: string) => unknown }).hash;
/** SHA-256's block size in bytes, which HMAC pads its key to, and its digest's size. */
const BLOCK = 64;
const DIGEST = 32;

export class AssetSigner {
  private readonly secret: Buffer;
  /**
   * HMAC's two inputs, written in place for each signature: the inner key block (the key padded to a block, XOR
   * 0x36) followed by the payload, and the outer key block (XOR 0x5c) followed by the inner digest (RFC 2104).
   * The inner one grows when a payload does not fit.
   */
  private inner: Buffer;
  private readonly outer: Buffer;
  /** Where a token's payload is written as UTF-8 before it is encoded; grows as `inner` does. */
  private text = Buffer.alloc(256);

  constructor(secret?: string) {
    this.secret = secret ? Buffer.from(secret) : crypto.randomBytes(32);
    const key = this.secret.length > BLOCK ? crypto.createHash('sha256').update(this.secret).digest() : this.secret;
    this.inner = Buffer.alloc(BLOCK + 256, 0x36);
    this.outer = Buffer.alloc(BLOCK + DIGEST, 0x5c);
    for (let i = 0; i < key.length; i++) {
      this.inner[i]! ^= key[i]!;
      this.outer[i]! ^= key[i]!;
    }
  }

  /**
   * HMAC-SHA-256 of the payload, base64url, cut to SIGNATURE_LENGTH. Where Node.js has its one-shot digest, the
   * HMAC is worked out from its definition with two of them over the key blocks kept in `inner` and `outer`: an
   * HMAC object per signature (two per voucher a redemption shows) cost about 14 µs of each redemption in
   * `make bench`'s profile, and a digest handed back as a Buffer about 2 µs a call (a new ArrayBuffer each time),
   * where the inner digest taken as latin1 text, one character a byte, and written back costs a tenth of that.
   * Both ways give the same bytes (tests/unit/assets.test.ts).
   */
  private signature(payload: string): string {
    if (oneShotHash === undefined) return crypto.createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, SIGNATURE_LENGTH);
    // A UTF-8 character takes at most 3 bytes per UTF-16 unit.
    if (this.inner.length < BLOCK + payload.length * 3) this.inner = Buffer.concat([this.inner.subarray(0, BLOCK), Buffer.alloc(payload.length * 3)]);
    const written = this.inner.write(payload, BLOCK, 'utf8');
    const digest = oneShotHash('sha256', this.inner.subarray(0, BLOCK + written), 'latin1') as string;
    this.outer.write(digest, BLOCK, 'latin1');
    return (oneShotHash('sha256', this.outer, 'base64url') as string).slice(0, SIGNATURE_LENGTH);
  }

  /**
   * What both of a code's tokens are made from: the project and code as base64url JSON, and its signature. One
   * signature serves both kinds, which each token names in front (`qr-` or `barcode-`; a payload begins `WyJ`,
   * the encoding of `["`, so the two makes of token cannot be mistaken for each other). Signing each kind apart
   * (two HMACs a voucher, each two SHA-256 digests) was about half the cost of a voucher's asset URLs, and those
   * were 6% of a redemption's CPU in `make bench`'s profile. A token of one kind renamed to the other opens to
   * the same code, whose images are both public to whoever holds either URL.
   */
  private signed(projectId: string, code: string): string {
    const json = JSON.stringify([projectId, code]);
    if (this.text.length < json.length * 3) this.text = Buffer.alloc(json.length * 3);
    const payload = this.text.toString('base64url', 0, this.text.write(json, 0, 'utf8'));
    return `${payload}_${this.signature(payload)}`;
  }

  token(kind: AssetKind, projectId: string, code: string): string {
    return named(kind, this.signed(projectId, code));
  }

  /** The project and code behind a token, or undefined when it is malformed, forged or of another kind. */
  open(kind: AssetKind, token: string): { projectId: string; code: string } | undefined {
    // The signature has a fixed length and may itself contain `_`, so cut by position.
    const cut = token.length - SIGNATURE_LENGTH - 1;
    if (cut <= 0 || token[cut] !== '_') return undefined;
    // Tokens made before one signature served both kinds have no kind in front: their payload holds it.
    const prefix = KINDS.find((each) => token.startsWith(named(each, '')));
    const payload = token.slice(prefix === undefined ? 0 : named(prefix, '').length, cut);
    const given = Buffer.from(token.slice(cut + 1));
    const expected = Buffer.from(this.signature(payload));
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return undefined;
    try {
      const fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
      if (!Array.isArray(fields) || fields.length !== (prefix === undefined ? 3 : 2) || !fields.every((field) => typeof field === 'string')) return undefined;
      const [tokenKind, projectId, code] = prefix === undefined ? (fields as string[]) : [prefix, ...(fields as string[])];
      return tokenKind === kind && projectId && code ? { projectId, code } : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Tokens of codes shown lately. Signing was the largest single cost of a page of vouchers (`make bench`); a
   * token never changes for a project and code, so it is kept, up to a bound.
   */
  private readonly recent = new Map<string, readonly [qr: string, barcode: string]>();

  assets(projectId: string, code: string, baseUrl: string) {
    const key = `${projectId}\u0000${code}`;
    let tokens = this.recent.get(key);
    if (tokens === undefined) {
      if (this.recent.size >= RECENT_TOKENS) this.recent.clear();
      const signed = this.signed(projectId, code);
      tokens = [named('qr', signed), named('barcode', signed)];
      this.recent.set(key, tokens);
    }
    return {
      qr: { id: tokens[0], url: `${baseUrl}/assets/qr/${tokens[0]}` },
      barcode: { id: tokens[1], url: `${baseUrl}/assets/barcode/${tokens[1]}` },
    };
  }
}

export async function renderAsset(kind: AssetKind, code: string): Promise<Buffer> {
  if (kind === 'qr') return QRCode.toBuffer(code, { type: 'png', margin: 1, width: 256 });
  return bwipjs.toBuffer({ bcid: 'code128', text: code, scale: 2, height: 12, includetext: true });
}
