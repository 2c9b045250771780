// The proofs as files an auditor is handed (or reads from the store) beside two checkpoints: JSON,
// hashes in standard base64 as the checkpoint writes its root, so that examples/verify-publication-log.mjs
// — or any RFC 9162 implementation — checks them with nothing of Marquee's. Pure.
//
// Inclusion proof: leaf `leafIndex` of the tree of `treeSize` leaves, the size of the checkpoint it
// is checked against; `leaf` is the leaf's bytes (the entry's canonical JSON, log-entry.ts), so the
// verifier hashes the entry itself and can show what it proves was published:
//
//   {"format":1,"kind":"inclusion-proof","origin":"cdn.example.com/marquee/publication-log",
//    "treeSize":1010,"leafIndex":5,"leaf":"eyJhdCI6…","proof":["lqKW0iTy…=", …]}
//
// Consistency proof: the tree of `newSize` leaves extends the tree of `oldSize` leaves, the sizes
// of an older and a newer checkpoint:
//
//   {"format":1,"kind":"consistency-proof","origin":"cdn.example.com/marquee/publication-log",
//    "oldSize":10,"newSize":1010,"proof":["Xwg/Choz…=", …]}
//
// `proof` is RFC 9162's inclusion_path / consistency_path in its order (§2.1.3.1, §2.1.4.1); equal
// sizes have an empty consistency proof.

export interface InclusionProofDocument {
  readonly format: 1;
  readonly kind: 'inclusion-proof';
  readonly origin: string;
  readonly treeSize: number;
  readonly leafIndex: number;
  /** base64 of the leaf's bytes. */
  readonly leaf: string;
  /** base64 of each hash. A plain array: the admin API answers this document, and its answers' types (typed from its schemas) hold plain arrays. */
  readonly proof: string[];
}

export interface ConsistencyProofDocument {
  readonly format: 1;
  readonly kind: 'consistency-proof';
  readonly origin: string;
  readonly oldSize: number;
  readonly newSize: number;
  /** base64 of each hash. */
  readonly proof: string[];
}

export function inclusionProofDocument(
  origin: string,
  treeSize: number,
  leaf: { readonly seq: number; readonly leaf: Uint8Array },
  proof: readonly Uint8Array[],
): InclusionProofDocument {
  return { format: 1, kind: 'inclusion-proof', origin, treeSize, leafIndex: leaf.seq, leaf: Buffer.from(leaf.leaf).toString('base64'), proof: proof.map(base64) };
}

export function consistencyProofDocument(origin: string, oldSize: number, newSize: number, proof: readonly Uint8Array[]): ConsistencyProofDocument {
  return { format: 1, kind: 'consistency-proof', origin, oldSize, newSize, proof: proof.map(base64) };
}

/** A proof file's bytes: the document as JSON, one member a line, and a final newline. */
export function proofDocumentBytes(document: InclusionProofDocument | ConsistencyProofDocument): Buffer {
  return Buffer.from(`${JSON.stringify(document, null, 2)}\n`, 'utf8');
}

const base64 = (hash: Uint8Array): string => Buffer.from(hash).toString('base64');
