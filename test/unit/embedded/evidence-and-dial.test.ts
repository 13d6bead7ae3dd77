import { sign } from '../../../src/devnet/chain/keys';
import { precommitSignBytes } from '../../../src/devnet/chain/vote';
import { InvalidParamsError } from '../../../src/rpc/errors';
import type { BlockId } from '../../../src/devnet/chain/types';
import { parseTimestamp } from '../../../src/devnet/time';
import { CHAIN_ID, errorOf, Harness, startDevnet } from './harness';

type Obj = Record<string, any>;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

describe('embedded devnet: broadcast_evidence', () => {
  let h: Harness;
  let blockTime: string;

  beforeAll(async () => {
    h = await startDevnet();
    await h.nextBlock();
    blockTime = ((await h.backend.blocks.header(1n)) as Obj).header.time;
  });
  afterAll(() => h.stop());

  function vote(blockHashByte: number, signer = h.backend.devnet.identity.validatorKey): Obj {
    const blockId: BlockId = { hash: new Uint8Array(32).fill(blockHashByte), partSetHeader: { total: 1, hash: new Uint8Array(32).fill(9) } };
    const timestamp = parseTimestamp(blockTime)!;
    const signature = sign(signer, precommitSignBytes(CHAIN_ID, 1n, 0, blockId, timestamp));
    return {
      type: 2,
      height: '1',
      round: 0,
      block_id: { hash: hex(blockId.hash), parts: { total: 1, hash: hex(blockId.partSetHeader.hash) } },
      timestamp: blockTime,
      validator_address: hex(signer.address),
      validator_index: 0,
      signature: Buffer.from(signature).toString('base64'),
    };
  }

  function evidence(value: Obj): Obj {
    return { type: 'tendermint/DuplicateVoteEvidence', value: { TotalVotingPower: '10', ValidatorPower: '10', Timestamp: blockTime, ...value } };
  }

  it('answers the basic errors', async () => {
    expect(await errorOf(h.backend.evidence.broadcastEvidence(null))).toBe('no evidence was provided');
    expect(await errorOf(h.backend.evidence.broadcastEvidence(evidence({ vote_a: vote(1) })))).toMatch(
      /^evidence.ValidateBasic failed: one or both of the votes are empty Vote\{0:[0-9A-F]{12} 1\/00\/SIGNED_MSG_TYPE_PRECOMMIT\(Precommit\) 010101010101 [0-9A-F]{12} 000000000000 @ .+\}, nil-Vote$/,
    );
    expect(await errorOf(h.backend.evidence.broadcastEvidence(evidence({ vote_a: vote(2), vote_b: vote(1) })))).toBe(
      'evidence.ValidateBasic failed: duplicate votes in invalid order',
    );
    expect(await errorOf(h.backend.evidence.broadcastEvidence(evidence({ vote_a: { ...vote(1), height: '0' }, vote_b: vote(2) })))).toBe(
      'evidence.ValidateBasic failed: invalid VoteA: negative or zero Height',
    );
    expect(await errorOf(h.backend.evidence.broadcastEvidence(evidence({ vote_a: vote(1), vote_b: { ...vote(2), signature: null } })))).toBe(
      'evidence.ValidateBasic failed: invalid VoteB: signature is missing',
    );
  });

  it('refuses evidence it cannot verify', async () => {
    const wrongTime = evidence({ vote_a: vote(1), vote_b: vote(2), Timestamp: '2001-01-01T00:00:00Z' });
    expect(await errorOf(h.backend.evidence.broadcastEvidence(wrongTime))).toMatch(
      /^failed to add evidence: Invalid evidence: evidence has a different time to the block it is associated with \(2001-01-01 00:00:00 \+0000 UTC != .+ \+0000 UTC\)\. Evidence: DuplicateVoteEvidence\{VoteA: Vote\{.+\}, VoteB: Vote\{.+\}\}$/,
    );
    const forged = evidence({ vote_a: vote(1), vote_b: { ...vote(2), signature: vote(3).signature } });
    expect(await errorOf(h.backend.evidence.broadcastEvidence(forged))).toMatch(/^failed to add evidence: Invalid evidence: verifying VoteB: invalid signature\. /);
    const power = evidence({ vote_a: vote(1), vote_b: vote(2), ValidatorPower: '3' });
    expect(await errorOf(h.backend.evidence.broadcastEvidence(power))).toContain(
      'validator power from evidence and our validator set does not match (3 != 10)',
    );
    const future = evidence({ vote_a: { ...vote(1), height: '99' }, vote_b: { ...vote(2), height: '99' } });
    expect(await errorOf(h.backend.evidence.broadcastEvidence(future))).toContain("Invalid evidence: don't have header #99.");
  });

  it('accepts a real duplicate vote of the devnet validator', async () => {
    const result = (await h.backend.evidence.broadcastEvidence(evidence({ vote_a: vote(1), vote_b: vote(2) }))) as Obj;
    expect(Buffer.from(result.hash, 'base64')).toHaveLength(32);
    expect(await h.backend.evidence.broadcastEvidence(evidence({ vote_a: vote(1), vote_b: vote(2) }))).toEqual(result);
  });

  it('answers light client attack evidence with its basic checks', async () => {
    const lca = (value: Obj): Obj => ({ type: 'tendermint/LightClientAttackEvidence', value });
    expect(await errorOf(h.backend.evidence.broadcastEvidence(lca({})))).toBe('evidence.ValidateBasic failed: conflicting block is nil');
    const block = { signed_header: { header: { height: '3' }, commit: {} }, validator_set: {} };
    expect(await errorOf(h.backend.evidence.broadcastEvidence(lca({ ConflictingBlock: block, TotalVotingPower: '10', CommonHeight: '5' })))).toBe(
      'evidence.ValidateBasic failed: common height is ahead of the conflicting block height (5 > 3)',
    );
  });

  it('treats an undecodable evidence object as a parameter error', async () => {
    const call = h.backend.evidence.broadcastEvidence({ type: 'tendermint/Nonsense', value: {} });
    await expect(call).rejects.toBeInstanceOf(InvalidParamsError);
    await expect(h.backend.evidence.broadcastEvidence({ type: 'tendermint/Nonsense', value: {} })).rejects.toMatchObject({
      data: 'error converting json params to arguments: unknown type "tendermint/Nonsense"',
    });
    await expect(h.backend.evidence.broadcastEvidence(evidence({ TotalVotingPower: 10 }))).rejects.toMatchObject({
      data: 'error converting json params to arguments: invalid 64-bit integer encoding "10", expected string',
    });
  });
});

describe('embedded devnet: dial_seeds and dial_peers', () => {
  let h: Harness;
  const id = 'a'.repeat(40);

  beforeAll(async () => {
    h = await startDevnet();
  });
  afterAll(() => h.stop());

  it('checks addresses as the p2p switch does', async () => {
    expect(await h.backend.info.dialSeeds([`${id}@1.2.3.4:26656`])).toEqual({ log: 'Dialing seeds in progress. See /net_info for details' });
    expect(await h.backend.info.dialPeers([`tcp://${id}@seed.example:26656`])).toEqual({
      log: 'Dialing peers in progress. See /net_info for details',
    });
    expect(await errorOf(h.backend.info.dialSeeds([]))).toBe('no seeds provided');
    expect(await errorOf(h.backend.info.dialPeers([]))).toBe('no peers provided');
    expect(await errorOf(h.backend.info.dialSeeds(['1.2.3.4:26656']))).toBe('address (1.2.3.4:26656) does not contain ID');
    expect(await errorOf(h.backend.info.dialPeers(['1.2.3.4:26656']))).toBe('address (1.2.3.4:26656) does not contain ID');
    expect(await errorOf(h.backend.info.dialSeeds(['abcd@1.2.3.4:26656']))).toBe(
      'invalid address (abcd@1.2.3.4:26656): invalid hex length - got 2, expected 20',
    );
    expect(await errorOf(h.backend.info.dialSeeds([`${id}@1.2.3.4`]))).toBe('invalid address (1.2.3.4): address 1.2.3.4: missing port in address');
    expect(await errorOf(h.backend.info.dialSeeds([`${id}@1.2.3.4:http`]))).toBe(
      'invalid address (http): strconv.ParseUint: parsing "http": invalid syntax',
    );
  });
});
