import { Block as BlockProto } from 'cosmjs-types/tendermint/types/block';
import { BLOCK_PART_SIZE_BYTES, blockIdOf, commitHash, consensusParamsHash, dataHash, encodeBlock, evidenceHash, headerHash, lastResultsHash, makePartSet, txHash, txProof, validatorsHash } from '../../../../src/devnet/chain/hashing';
import { leafHash, merkleRoot, sha256, verifyMerkleProof } from '../../../../src/devnet/chain/merkle';
import { ExecTxResult, Header } from '../../../../src/devnet/chain/types';
import { hex, makeBlock, makeChain, PARAMS, timestampOf, toHex, utf8, validatorKey } from './fixtures';

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

// types/block_test.go TestHeaderHash
function cometTestHeader(): Header {
  return {
    version: { block: 1n, app: 2n },
    chainId: 'chainId',
    height: 3n,
    time: timestampOf('2019-10-13T16:14:44Z'),
    lastBlockId: { hash: new Uint8Array(32), partSetHeader: { total: 6, hash: new Uint8Array(32) } },
    lastCommitHash: sha256(utf8('last_commit_hash')),
    dataHash: sha256(utf8('data_hash')),
    validatorsHash: sha256(utf8('validators_hash')),
    nextValidatorsHash: sha256(utf8('next_validators_hash')),
    consensusHash: sha256(utf8('consensus_hash')),
    appHash: sha256(utf8('app_hash')),
    lastResultsHash: sha256(utf8('last_results_hash')),
    evidenceHash: sha256(utf8('evidence_hash')),
    proposerAddress: sha256(utf8('proposer_address')).subarray(0, 20),
  };
}

function result(partial: Partial<ExecTxResult>): ExecTxResult {
  return { code: 0, data: new Uint8Array(0), log: '', info: '', gasWanted: 0n, gasUsed: 0n, events: [], codespace: '', ...partial };
}

describe('header hash', () => {
  test('matches CometBFT TestHeaderHash', () => {
    expect(toHex(headerHash(cometTestHeader())).toUpperCase()).toBe('F740121F553B5418C3EFBD343C2DBFE9E007BB67B0D020A0741374BAB65242A4');
  });

  test('is empty without a validators hash, as CometBFT returns nil', () => {
    expect(headerHash({ ...cometTestHeader(), validatorsHash: new Uint8Array(0) })).toEqual(new Uint8Array(0));
  });

  test('every header field changes the hash', () => {
    const base = toHex(headerHash(cometTestHeader()));
    const variants: Partial<Header>[] = [
      { version: { block: 1n, app: 3n } },
      { chainId: 'chainId2' },
      { height: 4n },
      { time: timestampOf('2019-10-13T16:14:44Z', 1) },
      { lastBlockId: { hash: new Uint8Array(32), partSetHeader: { total: 7, hash: new Uint8Array(32) } } },
      { lastCommitHash: new Uint8Array(32) },
      { dataHash: new Uint8Array(32) },
      { nextValidatorsHash: new Uint8Array(32) },
      { consensusHash: new Uint8Array(32) },
      { appHash: new Uint8Array(0) },
      { lastResultsHash: new Uint8Array(32) },
      { evidenceHash: new Uint8Array(32) },
      { proposerAddress: new Uint8Array(20) },
    ];
    for (const v of variants) expect(toHex(headerHash({ ...cometTestHeader(), ...v }))).not.toBe(base);
  });
});

describe('data, tx, evidence and results hashes', () => {
  test('tx hash is sha256 and data hash is the merkle root of tx hashes', () => {
    const txs = [utf8('a'), utf8('b'), utf8('c')];
    expect(toHex(txHash(txs[0]))).toBe('ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb');
    expect(dataHash(txs)).toEqual(merkleRoot(txs.map(txHash)));
    expect(toHex(dataHash([]))).toBe(EMPTY_SHA256);
  });

  test('evidence hash of no evidence is sha256 of nothing', () => {
    expect(toHex(evidenceHash())).toBe(EMPTY_SHA256);
  });

  // types/results_test.go TestABCIResults: a zero result encodes to no bytes; only code/data/gas are hashed.
  test('last results hash uses the deterministic ExecTxResult fields only', () => {
    expect(toHex(lastResultsHash([]))).toBe(EMPTY_SHA256);
    expect(toHex(lastResultsHash([result({})]))).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    const full = result({
      code: 14,
      data: utf8('foo'),
      gasWanted: 300n,
      gasUsed: 150n,
      log: 'ignored',
      info: 'ignored',
      codespace: 'ignored',
      events: [{ type: 'ignored', attributes: [{ key: 'k', value: 'v', index: true }] }],
    });
    // 08 0e | 12 03 "foo" | 28 ac 02 | 30 96 01
    expect(lastResultsHash([full])).toEqual(leafHash(hex('080e1203666f6f28ac02309601')));
  });

  test('tx proof verifies against the data hash', () => {
    const txs = [utf8('tx-a'), utf8('tx-b'), utf8('tx-c')];
    const proof = txProof(txs, 1);
    expect(proof.rootHash).toEqual(dataHash(txs));
    expect(proof.data).toEqual(txs[1]);
    expect(proof.proof.total).toBe(3n);
    expect(proof.proof.index).toBe(1n);
    expect(proof.proof.leafHash).toEqual(leafHash(txHash(txs[1])));
    expect(verifyMerkleProof(proof.proof, proof.rootHash, txHash(txs[1]))).toBe(true);
    expect(txProof([txs[0]], 0).proof.aunts).toEqual([]);
  });
});

describe('validator set and consensus params hashes', () => {
  test('validators hash is the merkle root of SimpleValidator bytes', () => {
    const key = validatorKey();
    const vals = [{ address: key.address, pubKey: key.pubKey, votingPower: 10n, proposerPriority: 5n }];
    // SimpleValidator{pub_key: PublicKey{ed25519}, voting_power: 10}: 0a 22 0a 20 <pub> 10 0a
    const bytes = Buffer.concat([hex('0a220a20'), key.pubKey, hex('100a')]);
    expect(validatorsHash(vals)).toEqual(leafHash(bytes));
    // proposer priority is not hashed
    expect(validatorsHash([{ ...vals[0], proposerPriority: 0n }])).toEqual(validatorsHash(vals));
  });

  test('validators are hashed in validator-set order (power desc, then address asc)', () => {
    const mk = (addr: number, power: bigint) => ({
      address: new Uint8Array(20).fill(addr),
      pubKey: new Uint8Array(32).fill(addr),
      votingPower: power,
      proposerPriority: 0n,
    });
    const a = mk(1, 5n);
    const b = mk(2, 10n);
    const c = mk(3, 5n);
    const expected = merkleRoot(
      [b, a, c].map((v) => Buffer.concat([hex('0a220a20'), v.pubKey, hex('10'), Uint8Array.of(Number(v.votingPower))])),
    );
    expect(validatorsHash([a, b, c])).toEqual(expected);
    expect(validatorsHash([c, a, b])).toEqual(expected);
  });

  test('consensus params hash covers block.max_bytes and block.max_gas only', () => {
    // HashedParams{block_max_bytes: 22020096, block_max_gas: -1}
    const bytes = hex('088080c00a10ffffffffffffffffff01');
    expect(consensusParamsHash(PARAMS)).toEqual(sha256(bytes));
    // the consensus_hash seen in the headers of chains that run CometBFT's default block params
    expect(toHex(consensusParamsHash(PARAMS)).toUpperCase()).toBe('048091BC7DDC283F77BFBF91D73C44DA58C3DF8A9CBC867405D8B7F3DAADA22F');
    expect(consensusParamsHash({ ...PARAMS, evidence: { ...PARAMS.evidence, maxBytes: 1n } })).toEqual(sha256(bytes));
    expect(consensusParamsHash({ ...PARAMS, block: { maxBytes: 1n, maxGas: -1n } })).not.toEqual(sha256(bytes));
  });
});

describe('commit hash', () => {
  test('an empty commit (height 1 last commit) hashes to sha256 of nothing', () => {
    const { block1 } = makeChain();
    expect(toHex(commitHash(block1.lastCommit))).toBe(EMPTY_SHA256);
  });

  test('is the merkle root of the protobuf CommitSigs', () => {
    const { commit1, key } = makeChain();
    const sig = commit1.signatures[0];
    // CommitSig: 08 02 | 12 14 <address> | 1a 0c 08 <1704164646> 10 <500000000> | 22 40 <signature>
    const ts = hex('1a0c' + '08a6facdac06' + '1080cab5ee01');
    const bytes = Buffer.concat([hex('08021214'), key.address, ts, hex('2240'), sig.signature]);
    expect(commitHash(commit1)).toEqual(leafHash(bytes));
  });
});

describe('block encoding and part set', () => {
  test('the block round-trips through tendermint.types.Block', () => {
    const { block2 } = makeChain();
    const decoded = BlockProto.decode(encodeBlock(block2));
    expect(decoded.header.height).toBe(2n);
    expect(decoded.header.chainId).toBe('devnet-1');
    expect(decoded.data.txs).toEqual(block2.txs);
    expect(decoded.lastCommit?.signatures[0].signature).toEqual(block2.lastCommit.signatures[0].signature);
    expect(BlockProto.encode(decoded).finish()).toEqual(encodeBlock(block2));
  });

  test('non-nullable empty fields are still encoded (data, evidence, zero BlockID)', () => {
    const { block1 } = makeChain();
    // ... 12 00 (data) | 1a 00 (evidence) | 22 04 1a 02 12 00 (last_commit{block_id{part_set_header{}}})
    expect(toHex(encodeBlock(block1)).endsWith('12001a002204' + '1a021200')).toBe(true);
  });

  test('a small block is one part whose hash is the leaf hash of the block bytes', () => {
    const { block2, id2 } = makeChain();
    const bytes = encodeBlock(block2);
    const set = makePartSet(block2);
    expect(set.parts).toEqual([bytes]);
    expect(set.header).toEqual({ total: 1, hash: leafHash(bytes) });
    expect(id2).toEqual({ hash: headerHash(block2.header), partSetHeader: set.header });
  });

  test('a large block is split into 65536-byte parts', () => {
    const key = validatorKey();
    const txs = [new Uint8Array(100_000).fill(7), new Uint8Array(70_000).fill(8)];
    const block = makeBlock(key, 1n, txs, timestampOf('2024-01-01T00:00:00Z'));
    const bytes = encodeBlock(block);
    const set = makePartSet(block);
    expect(set.header.total).toBe(Math.ceil(bytes.length / BLOCK_PART_SIZE_BYTES));
    expect(set.header.total).toBe(3);
    expect(set.parts.slice(0, -1).every((p) => p.length === BLOCK_PART_SIZE_BYTES)).toBe(true);
    expect(Buffer.concat(set.parts)).toEqual(Buffer.from(bytes));
    expect(set.header.hash).toEqual(merkleRoot(set.parts));
    expect(blockIdOf(block).partSetHeader).toEqual(set.header);
  });

  test('header hashes of the devnet chain link up', () => {
    const { block1, block2, id1 } = makeChain();
    expect(block2.header.lastBlockId).toEqual(id1);
    expect(block2.header.lastCommitHash).toEqual(commitHash(block2.lastCommit));
    expect(block2.header.dataHash).toEqual(dataHash(block2.txs));
    expect(toHex(block1.header.lastCommitHash)).toBe(EMPTY_SHA256);
  });
});
