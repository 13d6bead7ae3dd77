import { txProof } from '../../../../src/devnet/chain/hashing';
import { blockIdJson, blockJson, commitJson, consensusParamsJson, headerJson, timestampJson, txProofJson, validatorJson } from '../../../../src/devnet/chain/wire';
import { GO_ZERO_TIME, makeChain, PARAMS, timestampOf, toHex, validatorSet } from './fixtures';

const HEX64 = /^[0-9A-F]{64}$/;
const upper = (b: Uint8Array) => toHex(b).toUpperCase();
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

describe('timestampJson (Go time.RFC3339Nano, UTC)', () => {
  test.each([
    ['2024-01-02T03:04:05Z', 123456789, '2024-01-02T03:04:05.123456789Z'],
    ['2024-01-02T03:04:05Z', 0, '2024-01-02T03:04:05Z'],
    ['2024-01-02T03:04:05Z', 120000000, '2024-01-02T03:04:05.12Z'],
    ['2024-01-02T03:04:05Z', 1, '2024-01-02T03:04:05.000000001Z'],
    ['1970-01-01T00:00:00Z', 0, '1970-01-01T00:00:00Z'],
    ['2019-04-22T17:01:51Z', 701356223, '2019-04-22T17:01:51.701356223Z'],
  ])('%s + %dns', (iso, nanos, expected) => {
    expect(timestampJson(timestampOf(iso, nanos))).toBe(expected);
  });

  test("Go's zero time", () => {
    expect(timestampJson(GO_ZERO_TIME)).toBe('0001-01-01T00:00:00Z');
  });
});

describe('block JSON', () => {
  test('block 2 has the node RPC shape', () => {
    const { key, block2, id1, commit1 } = makeChain();
    const h = block2.header;
    expect(blockJson(block2)).toEqual({
      header: {
        version: { block: '11' },
        chain_id: 'devnet-1',
        height: '2',
        time: '2024-01-02T03:04:06.6Z',
        last_block_id: { hash: upper(id1.hash), parts: { total: 1, hash: upper(id1.partSetHeader.hash) } },
        last_commit_hash: upper(h.lastCommitHash),
        data_hash: upper(h.dataHash),
        validators_hash: upper(h.validatorsHash),
        next_validators_hash: upper(h.validatorsHash),
        consensus_hash: '048091BC7DDC283F77BFBF91D73C44DA58C3DF8A9CBC867405D8B7F3DAADA22F',
        app_hash: '0000000000000000',
        last_results_hash: 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
        evidence_hash: 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
        proposer_address: upper(key.address),
      },
      data: { txs: ['dHgtYQ==', 'dHgtYg==', 'dHgtYw=='] },
      evidence: { evidence: [] },
      last_commit: {
        height: '1',
        round: 0,
        block_id: { hash: upper(id1.hash), parts: { total: 1, hash: upper(id1.partSetHeader.hash) } },
        signatures: [
          {
            block_id_flag: 2,
            validator_address: upper(key.address),
            timestamp: '2024-01-02T03:04:06.5Z',
            signature: b64(commit1.signatures[0].signature),
          },
        ],
      },
    });
    expect(blockIdJson(id1)).toEqual({ hash: upper(id1.hash), parts: { total: 1, hash: upper(id1.partSetHeader.hash) } });
    expect(upper(h.lastCommitHash)).toMatch(HEX64);
    expect(upper(key.address)).toMatch(/^[0-9A-F]{40}$/);
  });

  test('block 1 has a zero last_block_id, an empty last commit and no txs', () => {
    const { block1 } = makeChain();
    const json = blockJson(block1);
    expect(json.header.last_block_id).toEqual({ hash: '', parts: { total: 0, hash: '' } });
    expect(json.header.last_commit_hash).toBe('E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855');
    expect(json.header.time).toBe('2024-01-02T03:04:05.123456789Z');
    expect(json.data).toEqual({ txs: [] });
    expect(json.last_commit).toEqual({ height: '0', round: 0, block_id: { hash: '', parts: { total: 0, hash: '' } }, signatures: [] });
  });

  test('version.app appears when it is not 0', () => {
    const { block1 } = makeChain();
    expect(headerJson({ ...block1.header, version: { block: 11n, app: 3n } }).version).toEqual({ block: '11', app: '3' });
  });

  test('an absent commit signature', () => {
    const { commit2 } = makeChain();
    const absent = { blockIdFlag: 1 as const, validatorAddress: new Uint8Array(0), timestamp: GO_ZERO_TIME, signature: new Uint8Array(0) };
    expect(commitJson({ ...commit2, signatures: [absent] }).signatures).toEqual([
      { block_id_flag: 1, validator_address: '', timestamp: '0001-01-01T00:00:00Z', signature: null },
    ]);
  });
});

describe('validator, consensus params and tx proof JSON', () => {
  test('validator', () => {
    const { key } = makeChain();
    expect(validatorJson({ ...validatorSet(key)[0], proposerPriority: -5n })).toEqual({
      address: upper(key.address),
      pub_key: { type: 'tendermint/PubKeyEd25519', value: '11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=' },
      voting_power: '10',
      proposer_priority: '-5',
    });
  });

  test('consensus params', () => {
    expect(consensusParamsJson(PARAMS)).toEqual({
      block: { max_bytes: '22020096', max_gas: '-1' },
      evidence: { max_age_num_blocks: '100000', max_age_duration: '172800000000000', max_bytes: '1048576' },
      validator: { pub_key_types: ['ed25519'] },
      version: { app: '0' },
      abci: { vote_extensions_enable_height: '0' },
    });
  });

  test('tx proof', () => {
    const { block2 } = makeChain();
    const proof = txProof(block2.txs, 2);
    expect(txProofJson(proof)).toEqual({
      root_hash: upper(block2.header.dataHash),
      data: 'dHgtYw==',
      proof: {
        total: '3',
        index: '2',
        leaf_hash: b64(proof.proof.leafHash),
        aunts: proof.proof.aunts.map(b64),
      },
    });
    expect(proof.proof.aunts).toHaveLength(1);
  });
});
