// The publication log's Merkle tree, as RFC 9162 (Certificate Transparency v2, §2.1) defines it and
// RFC 6962 did before: leaf hash SHA-256(0x00 || leaf), node hash SHA-256(0x01 || left || right),
// the hash of n leaves split at the largest power of two smaller than n. Pure: no I/O, no clock.
//
// The store keeps only the hashes of perfect (complete) subtrees — (level, index) covers leaves
// [index·2^level, (index+1)·2^level) — each written once when an append completes it and never
// changed after (log-store.ts). Every hash a root or a proof needs is a fold of a few of them: the
// hash of any range a tree of size n splits into is its binary decomposition into perfect subtrees,
// folded right to left. So a proof names the perfect subtrees it needs first (subtreesFor…), the
// store reads them in one query, and the proof is assembled from what was read: O(log n) hashes.
//
// Sizes and indices are JavaScript numbers, exact up to 2^53: arithmetic here divides and takes
// remainders rather than shifting bits, which JavaScript does on 32 bits only.
import { createHash, hash as digest } from 'node:crypto';

export const HASH_BYTES = 32;

/** A perfect subtree: the 2^level leaves from index·2^level on. */
export interface Subtree {
  readonly level: number;
  readonly index: number;
}

/** A perfect subtree with its hash. */
export interface SubtreeHash extends Subtree {
  readonly hash: Buffer;
}

/** The hash of a perfect subtree the caller has (undefined when it has not: the proof cannot be made). */
export type SubtreeReader = (level: number, index: number) => Uint8Array | undefined;

const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;

// One-shot hashes of one buffer: half the cost of createHash().update()…, which a proof check at a
// million leaves (40 hashes) or the append of a batch (two per leaf) repeats.
export function leafHash(leaf: Uint8Array): Buffer {
  const input = Buffer.allocUnsafe(1 + leaf.length);
  input[0] = LEAF_PREFIX;
  input.set(leaf, 1);
  return digest('sha256', input, 'buffer');
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  const input = Buffer.allocUnsafe(1 + left.length + right.length);
  input[0] = NODE_PREFIX;
  input.set(left, 1);
  input.set(right, 1 + left.length);
  return digest('sha256', input, 'buffer');
}

/** The Merkle Tree Hash of no leaves: SHA-256 of nothing (RFC 9162 §2.1.1). */
export function emptyRoot(): Buffer {
  return createHash('sha256').digest();
}

/** The largest power of two smaller than n (n ≥ 2): where RFC 9162 splits a tree of n leaves. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function checkSize(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number ≥ 0, got ${value}`);
}

/**
 * The perfect subtrees that make the leaves [start, end) of a tree: largest first, as the RFC 9162
 * split makes them when `start` is where a split put it (0, or a multiple of a power of two at least
 * as large as end - start, which every range a proof asks for is). Folded right to left by
 * nodeHash, their hashes are the range's Merkle Tree Hash (rangeHash).
 */
export function rangeSubtrees(start: number, end: number): Subtree[] {
  checkSize('start', start);
  checkSize('end', end);
  if (end < start) throw new RangeError(`range [${start}, ${end}) is reversed`);
  const subtrees: Subtree[] = [];
  let at = start;
  while (at < end) {
    // The largest perfect subtree beginning at `at` that fits: aligned on its own size.
    let size = 1;
    while (at % (size * 2) === 0 && at + size * 2 <= end) size *= 2;
    const level = Math.log2(size);
    subtrees.push({ level, index: at / size });
    at += size;
  }
  return subtrees;
}

/** The Merkle Tree Hash of leaves [start, end) from the perfect subtrees' hashes; the empty root for an empty range. */
export function rangeHash(start: number, end: number, read: SubtreeReader): Buffer {
  const subtrees = rangeSubtrees(start, end);
  if (subtrees.length === 0) return emptyRoot();
  let hash: Buffer | undefined;
  for (let position = subtrees.length - 1; position >= 0; position--) {
    const { level, index } = subtrees[position]!;
    const own = readSubtree(read, level, index);
    hash = hash === undefined ? own : nodeHash(own, hash);
  }
  return hash!;
}

function readSubtree(read: SubtreeReader, level: number, index: number): Buffer {
  const hash = read(level, index);
  if (hash === undefined || hash.length !== HASH_BYTES) throw new Error(`no hash of the perfect subtree at level ${level}, index ${index}`);
  return Buffer.from(hash);
}

/** The Merkle Tree Hash of a list of leaf hashes (RFC 9162 §2.1.1), in memory. */
export function rootOf(leafHashes: readonly Uint8Array[]): Buffer {
  if (leafHashes.length === 0) return emptyRoot();
  // Level by level, the last node of an odd level carried up as it is: the same tree as the RFC's
  // split at the largest power of two.
  let level: Buffer[] = leafHashes.map((hash) => Buffer.from(hash));
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let index = 0; index + 1 < level.length; index += 2) next.push(nodeHash(level[index]!, level[index + 1]!));
    if (level.length % 2 === 1) next.push(level.at(-1)!);
    level = next;
  }
  return level[0]!;
}

// ---- appending ------------------------------------------------------------------------------------

/**
 * The perfect subtrees that appending `leafHashes` after the first `size` leaves completes, leaves
 * included (level 0), in the order they complete. `frontier` is rangeSubtrees(0, size) with hashes:
 * the only older hashes an append needs.
 */
export function completedSubtrees(size: number, frontier: readonly SubtreeHash[], leafHashes: readonly Uint8Array[]): SubtreeHash[] {
  checkSize('size', size);
  const expected = rangeSubtrees(0, size);
  if (frontier.length !== expected.length || frontier.some((subtree, position) => subtree.level !== expected[position]!.level || subtree.index !== expected[position]!.index)) {
    throw new Error(`the frontier given is not that of a tree of ${size} leaves`);
  }
  // The frontier is a stack of perfect subtrees, largest at the bottom: each new leaf is pushed and
  // merged with its left neighbour for as long as the two are the same size.
  const stack: SubtreeHash[] = frontier.map(({ level, index, hash }) => ({ level, index, hash: Buffer.from(hash) }));
  const completed: SubtreeHash[] = [];
  leafHashes.forEach((hash, offset) => {
    let node: SubtreeHash = { level: 0, index: size + offset, hash: Buffer.from(hash) };
    completed.push(node);
    while (stack.length > 0 && stack.at(-1)!.level === node.level) {
      const left = stack.pop()!;
      node = { level: node.level + 1, index: left.index / 2, hash: nodeHash(left.hash, node.hash) };
      completed.push(node);
    }
    stack.push(node);
  });
  return completed;
}

// ---- inclusion proofs (RFC 9162 §2.1.3) ----------------------------------------------------------

/** The leaf ranges whose hashes make PATH(index, D[0:size]), leaf side first. */
export function inclusionProofRanges(index: number, size: number): Array<readonly [number, number]> {
  checkSize('index', index);
  checkSize('size', size);
  if (index >= size) throw new RangeError(`leaf ${index} is not in a tree of ${size} leaves`);
  const ranges: Array<readonly [number, number]> = [];
  // PATH(m, D[n]) = PATH(m, D[0:k]) : MTH(D[k:n]) when m < k, PATH(m - k, D[k:n]) : MTH(D[0:k]) otherwise:
  // walked from the root down, each sibling is put before those of the levels above it.
  let start = 0;
  let end = size;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index < start + k) {
      ranges.unshift([start + k, end]);
      end = start + k;
    } else {
      ranges.unshift([start, start + k]);
      start += k;
    }
  }
  return ranges;
}

/** PATH(index, D[0:size]) (RFC 9162 §2.1.3.1) from the perfect subtrees' hashes. */
export function inclusionProof(index: number, size: number, read: SubtreeReader): Buffer[] {
  return inclusionProofRanges(index, size).map(([start, end]) => rangeHash(start, end, read));
}

// ---- consistency proofs (RFC 9162 §2.1.4) --------------------------------------------------------

/** The leaf ranges whose hashes make PROOF(oldSize, D[0:newSize]), in the proof's order. */
export function consistencyProofRanges(oldSize: number, newSize: number): Array<readonly [number, number]> {
  checkSize('oldSize', oldSize);
  checkSize('newSize', newSize);
  if (oldSize < 1 || oldSize > newSize) throw new RangeError(`no consistency proof from ${oldSize} leaves to ${newSize} (0 < old ≤ new)`);
  // SUBPROOF(m, D[n], b): {} when m = n and b, {MTH(D[n])} when m = n and not b; otherwise with k
  // the split, SUBPROOF(m, D[0:k], b) : MTH(D[k:n]) when m ≤ k, SUBPROOF(m - k, D[k:n], false) :
  // MTH(D[0:k]) when m > k. Walked from the root down, each hash is put before those above it.
  const ranges: Array<readonly [number, number]> = [];
  let start = 0;
  let end = newSize;
  let m = oldSize;
  let whole = true;
  while (m !== end - start) {
    const k = splitPoint(end - start);
    if (m <= k) {
      ranges.unshift([start + k, end]);
      end = start + k;
    } else {
      ranges.unshift([start, start + k]);
      start += k;
      m -= k;
      whole = false;
    }
  }
  if (!whole) ranges.unshift([start, end]);
  return ranges;
}

/** PROOF(oldSize, D[0:newSize]) (RFC 9162 §2.1.4.1) from the perfect subtrees' hashes; empty when the sizes are equal. */
export function consistencyProof(oldSize: number, newSize: number, read: SubtreeReader): Buffer[] {
  return consistencyProofRanges(oldSize, newSize).map(([start, end]) => rangeHash(start, end, read));
}

/** Every perfect subtree the given ranges' hashes need, each once: what a store reads for a proof. */
export function subtreesFor(ranges: ReadonlyArray<readonly [number, number]>): Subtree[] {
  const seen = new Map<string, Subtree>();
  for (const [start, end] of ranges) for (const subtree of rangeSubtrees(start, end)) seen.set(`${subtree.level}:${subtree.index}`, subtree);
  return [...seen.values()];
}

// ---- verification ---------------------------------------------------------------------------------

const isHash = (value: Uint8Array): boolean => value.length === HASH_BYTES;
const odd = (value: number): boolean => value % 2 === 1;
const half = (value: number): number => Math.floor(value / 2);

/**
 * Whether `proof` shows the leaf of hash `leaf` at `index` in the tree of `size` leaves whose root is
 * `root`: RFC 9162 §2.1.3.2, step by step.
 */
export function verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (!isHash(leaf) || !isHash(root) || !proof.every(isHash)) return false;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && r.equals(root);
}

/**
 * Whether `proof` shows that the tree of `newSize` leaves whose root is `newRoot` extends the tree of
 * `oldSize` leaves whose root is `oldRoot`: RFC 9162 §2.1.4.2, step by step. Equal sizes need an
 * empty proof and equal roots (RFC 9162 makes no proof for them); a proof from an empty tree proves
 * nothing, and is refused as transparency-dev/merkle refuses it.
 */
export function verifyConsistency(oldSize: number, newSize: number, oldRoot: Uint8Array, newRoot: Uint8Array, proof: readonly Uint8Array[]): boolean {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize < 1 || oldSize > newSize) return false;
  if (!isHash(oldRoot) || !isHash(newRoot) || !proof.every(isHash)) return false;
  if (oldSize === newSize) return proof.length === 0 && Buffer.from(oldRoot).equals(newRoot);
  // 1. An empty path fails.
  if (proof.length === 0) return false;
  // 2. When the old size is a power of two, its root is the first node of the path.
  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : [...proof];
  // 3, 4.
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  // 5.
  let fr: Buffer = Buffer.from(path[0]!);
  let sr: Buffer = Buffer.from(path[0]!);
  // 6.
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // 7.
  return fr.equals(oldRoot) && sr.equals(newRoot) && sn === 0;
}

function isPowerOfTwo(value: number): boolean {
  let power = 1;
  while (power < value) power *= 2;
  return power === value;
}
