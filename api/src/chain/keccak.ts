import { createKeccak, type IHasher } from "hash-wasm";
import { getBytes, keccak256 } from "ethers";

/**
 * keccak256 on the hot paths of the service (EIP-55 checksums of every address a request carries, the EIP-191 digest
 * and the signer's address of every registration), computed by hash-wasm's WebAssembly Keccak instead of the
 * JavaScript one ethers uses, since these paths hash on every request (`npm run bench:api` shows what a registration
 * costs). The hasher is
 * ready a moment after start-up; until then ethers' keccak256 answers, with the same result.
 */

let hasher: IHasher | null = null;

/** Resolves once the WebAssembly hasher is in use. */
export const keccakReady: Promise<void> = createKeccak(256).then(
  (created) => void (hasher = created),
  () => undefined,
);

/** keccak256 of `data`, as bytes. */
export function keccak256Bytes(data: Uint8Array): Uint8Array {
  if (!hasher) return getBytes(keccak256(data));
  hasher.init();
  hasher.update(data);
  return hasher.digest("binary");
}

/**
 * The EIP-55 checksummed form of a `0x` + 40 hex digit address in any case (the caller checks the shape): each letter
 * is upper case where the matching nibble of keccak256(lowercase hex digits, as ASCII) is 8 or more.
 */
export function checksumAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const hash = keccak256Bytes(Buffer.from(lower, "ascii"));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1] >> 4 : hash[i >> 1] & 0x0f;
    out += nibble >= 8 ? lower[i].toUpperCase() : lower[i];
  }
  return out;
}
