// The publication log's Merkle tree against RFC 9162 itself and against the RFC 6962 test tree's
// hashes: roots, inclusion and consistency proofs made from perfect-subtree hashes alone, for every
// tree of 1 to 64 leaves and every leaf and older size in it, equal to the RFC's recursive definitions
// computed naively from the leaves, verified by the RFC's algorithms, and refused once tampered with.
//
// The expected values: the RFC 6962 test tree's leaves, node hashes and roots, as published with
// other implementations (transparency-dev/merkle's testonly/constants.go): the hashes any correct
// implementation computes, kept here as the facts to check ours against. Proofs are checked against
// the RFC's own recursive definitions below, and against examples/verify-publication-log.mjs.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  completedSubtrees,
  consistencyProof,
  emptyRoot,
  inclusionProof,
  leafHash,
  nodeHash,
  rangeHash,
  rangeSubtrees,
  rootOf,
  type SubtreeHash,
  type SubtreeReader,
  verifyConsistency,
  verifyInclusion,
} from '../../../records/publication-log/merkle.ts';

const hex = (text: string) => Buffer.from(text, 'hex');

// testonly/constants.go
const LEAF_INPUTS = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(hex);
const NODE_HASHES = [
  [
    '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
    '0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7',
    '07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7',
    'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    '4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658',
    'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
    '46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1',
  ],
  [
    'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
    '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
    '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
    'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
  ],
  ['d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4'],
  ['5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328'],
];
const ROOT_HASHES = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

// ---- RFC 9162 §2.1, written as the RFC writes it, from the leaves ---------------------------------

const split = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);
/** MTH(D[start:end]) of `leaves`, remembered: the definitions below ask for the same ranges again and again. */
function naive(leaves: readonly Buffer[]) {
  const memo = new Map<string, Buffer>();
  const mth = (start: number, end: number): Buffer => {
    const key = `${start}:${end}`;
    let hash = memo.get(key);
    if (hash === undefined) {
      if (end === start) hash = createHash('sha256').digest();
      else if (end - start === 1) hash = leafHash(leaves[start]!);
      else hash = nodeHash(mth(start, start + split(end - start)), mth(start + split(end - start), end));
      memo.set(key, hash);
    }
    return hash;
  };
  // PATH(m, D[start:end]) and SUBPROOF(m, D[start:end], b), m counted from start.
  const path = (m: number, start: number, end: number): Buffer[] => {
    if (end - start === 1) return [];
    const k = split(end - start);
    return m < k ? [...path(m, start, start + k), mth(start + k, end)] : [...path(m - k, start + k, end), mth(start, start + k)];
  };
  const subproof = (m: number, start: number, end: number, whole: boolean): Buffer[] => {
    if (m === end - start) return whole ? [] : [mth(start, end)];
    const k = split(end - start);
    return m <= k ? [...subproof(m, start, start + k, whole), mth(start + k, end)] : [...subproof(m - k, start + k, end, false), mth(start, start + k)];
  };
  return {
    root: (size: number) => mth(0, size),
    path: (m: number, size: number) => path(m, 0, size),
    proof: (m: number, size: number) => subproof(m, 0, size, true),
  };
}

/** Perfect-subtree hashes as a store keeps them, appended in batches of the given sizes. */
function subtreeStore(leaves: readonly Buffer[], batches: readonly number[]): SubtreeReader {
  const stored = new Map<string, Buffer>();
  let size = 0;
  let batch = 0;
  while (size < leaves.length) {
    const count = Math.min(batches[batch++ % batches.length]!, leaves.length - size);
    const frontier: SubtreeHash[] = rangeSubtrees(0, size).map(({ level, index }) => ({ level, index, hash: stored.get(`${level}:${index}`)! }));
    for (const subtree of completedSubtrees(size, frontier, leaves.slice(size, size + count).map(leafHash))) {
      const key = `${subtree.level}:${subtree.index}`;
      if (stored.has(key)) throw new Error(`${key} written twice`);
      stored.set(key, subtree.hash);
    }
    size += count;
  }
  return (level, index) => stored.get(`${level}:${index}`);
}

/** Leaves unlike each other: their number, as text. */
const leavesOf = (count: number) => Array.from({ length: count }, (_, index) => Buffer.from(`leaf ${index}`));

/** Every single-bit flip in each element, one element dropped, one added, one duplicated. */
function tampered(proof: readonly Buffer[]): Buffer[][] {
  const variants: Buffer[][] = [];
  proof.forEach((element, position) => {
    for (const bit of [0, 7 * 8 + 3, 31 * 8 + 7]) {
      const flipped = Buffer.from(element);
      flipped[bit >> 3]! ^= 1 << (bit & 7);
      variants.push(proof.map((other, at) => (at === position ? flipped : other)));
    }
  });
  if (proof.length > 0) variants.push(proof.slice(1), proof.slice(0, -1), [...proof, proof.at(-1)!]);
  variants.push([...proof, Buffer.alloc(32)], [Buffer.alloc(32), ...proof]);
  return variants;
}

describe('RFC 9162 hashing, against transparency-dev/merkle testonly/constants.go', () => {
  it('hashes each leaf, each perfect subtree and each root of the vectors', () => {
    for (const [index, input] of LEAF_INPUTS.entries()) expect(leafHash(input).toString('hex')).toBe(NODE_HASHES[0]![index]);
    expect(emptyRoot().toString('hex')).toBe(ROOT_HASHES[0]);
    for (let size = 0; size <= LEAF_INPUTS.length; size++) {
      expect(rootOf(LEAF_INPUTS.slice(0, size).map(leafHash)).toString('hex')).toBe(ROOT_HASHES[size]);
      expect(naive(LEAF_INPUTS).root(size).toString('hex')).toBe(ROOT_HASHES[size]);
    }
    const read = subtreeStore(LEAF_INPUTS, [1]);
    for (const [height, level] of NODE_HASHES.entries()) {
      for (const [index, hash] of level.entries()) expect(Buffer.from(read(height, index)!).toString('hex')).toBe(hash);
    }
    for (let size = 1; size <= LEAF_INPUTS.length; size++) expect(rangeHash(0, size, read).toString('hex')).toBe(ROOT_HASHES[size]);
  });
});

describe('every tree of 1 to 64 leaves', () => {
  const LEAVES = leavesOf(64);
  // Appended one at a time, and in uneven batches: the stored subtrees are the same.
  const readers = { 'one by one': subtreeStore(LEAVES, [1]), 'in batches': subtreeStore(LEAVES, [5, 1, 13, 2, 7]) };
  const reference = naive(LEAVES);
  const roots = Array.from({ length: 65 }, (_, size) => reference.root(size));
  const rewritten = naive([Buffer.from('rewritten'), ...LEAVES.slice(1)]);

  for (const [how, read] of Object.entries(readers)) {
    it(`has the naive root at every size (appended ${how})`, () => {
      for (let size = 1; size <= 64; size++) {
        expect(rangeHash(0, size, read)).toEqual(roots[size]);
        expect(rootOf(LEAVES.slice(0, size).map(leafHash))).toEqual(roots[size]);
      }
    });
  }

  it('proves every leaf of every size, with the RFC path, and refuses every tampered proof', () => {
    const read = readers['in batches'];
    const accepted: string[] = [];
    let checked = 0;
    for (let size = 1; size <= 64; size++) {
      for (let index = 0; index < size; index++) {
        const proof = inclusionProof(index, size, read);
        expect(proof).toEqual(reference.path(index, size));
        const leaf = leafHash(LEAVES[index]!);
        expect(verifyInclusion(index, size, leaf, proof, roots[size]!)).toBe(true);
        // Collected rather than asserted one by one: tens of thousands of expect() calls cost seconds.
        for (const [position, variant] of tampered(proof).entries()) if (verifyInclusion(index, size, leaf, variant, roots[size]!)) accepted.push(`${index}/${size} #${position}`);
        expect(verifyInclusion(index, size, leafHash(Buffer.from('another leaf')), proof, roots[size]!)).toBe(false);
        expect(verifyInclusion(index, size, leaf, proof, roots[size === 1 ? 2 : size - 1]!)).toBe(false);
        if (size > 1) expect(verifyInclusion((index + 1) % size, size, leaf, proof, roots[size]!)).toBe(false);
        checked++;
      }
    }
    expect(checked).toBe((64 * 65) / 2);
    expect(accepted).toEqual([]);
  });

  it('proves every older size of every size consistent, with the RFC proof, and refuses every tampered proof', () => {
    const read = readers['one by one'];
    const accepted: string[] = [];
    let checked = 0;
    for (let size = 1; size <= 64; size++) {
      for (let old = 1; old <= size; old++) {
        const proof = consistencyProof(old, size, read);
        expect(proof).toEqual(reference.proof(old, size));
        expect(verifyConsistency(old, size, roots[old]!, roots[size]!, proof)).toBe(true);
        for (const [position, variant] of tampered(proof).entries())
          if (verifyConsistency(old, size, roots[old]!, roots[size]!, variant)) accepted.push(`${old}→${size} #${position}`);
        // Another older tree (a rewritten log) under the same sizes.
        expect(verifyConsistency(old, size, rewritten.root(old), roots[size]!, proof)).toBe(false);
        if (old < size) {
          expect(verifyConsistency(old, size, roots[old]!, roots[size - 1]!, proof)).toBe(false);
          expect(verifyConsistency(old + 1, size, roots[old]!, roots[size]!, proof)).toBe(false);
        }
        checked++;
      }
    }
    expect(checked).toBe((64 * 65) / 2);
    expect(accepted).toEqual([]);
  });

  it('refuses what no proof can show: a leaf beyond the tree, a consistency from nothing or to fewer leaves', () => {
    const read = readers['one by one'];
    expect(() => inclusionProof(5, 5, read)).toThrow(RangeError);
    expect(() => consistencyProof(0, 5, read)).toThrow(RangeError);
    expect(() => consistencyProof(6, 5, read)).toThrow(RangeError);
    expect(() => inclusionProof(0, 65, read)).toThrow(/no hash of the perfect subtree/);
    expect(verifyConsistency(0, 0, emptyRoot(), emptyRoot(), [])).toBe(false);
    expect(verifyConsistency(5, 4, roots[5]!, roots[4]!, [])).toBe(false);
  });
});

describe('perfect subtrees', () => {
  it('decompose a range into aligned powers of two, largest first', () => {
    expect(rangeSubtrees(0, 0)).toEqual([]);
    expect(rangeSubtrees(0, 7)).toEqual([
      { level: 2, index: 0 },
      { level: 1, index: 2 },
      { level: 0, index: 6 },
    ]);
    expect(rangeSubtrees(8, 13)).toEqual([
      { level: 2, index: 2 },
      { level: 0, index: 12 },
    ]);
    expect(rangeSubtrees(0, 2 ** 40 + 1)).toEqual([
      { level: 40, index: 0 },
      { level: 0, index: 2 ** 40 },
    ]);
  });

  it('refuse a frontier that is not the tree’s', () => {
    expect(() => completedSubtrees(3, [], [leafHash(Buffer.from('x'))])).toThrow(/frontier/);
  });
});
