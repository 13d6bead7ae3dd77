import { ValidatorUpdate } from 'cosmjs-types/tendermint/abci/types';
import { BinaryReader } from 'cosmjs-types/binary';
import { generateValidatorKey } from '../../../src/devnet/chain/keys';
import { txHash } from '../../../src/devnet/chain/hashing';
import { bytes, flush, Harness, startDevnet } from './harness';

type Obj = Record<string, any>;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

describe('embedded devnet: validator updates', () => {
  let h: Harness;
  const joiner = generateValidatorKey();

  beforeAll(async () => {
    h = await startDevnet();
  });
  afterAll(() => h.stop());

  /** The tx in the next block: its result and height. */
  async function commitTx(tx: string): Promise<Obj> {
    await h.backend.mempool.broadcastTxSync(bytes(tx));
    await h.nextBlock();
    return (await h.backend.txs.tx(txHash(bytes(tx)), false)) as Obj;
  }

  it('adds a validator two heights after the tx, announcing ValidatorSetUpdates', async () => {
    const result = await commitTx(`val=ed25519!${b64(joiner.pubKey)}!5`);
    expect(result.tx_result.code).toBe(0);
    const height = BigInt(result.height);
    await flush();

    const update = h.events.find((e) => e.type === 'ValidatorSetUpdates');
    expect(update).toBeDefined();
    expect(update!.events).toEqual({ 'tm.event': ['ValidatorSetUpdates'] });
    expect(update!.data).toEqual({
      type: 'tendermint/event/ValidatorSetUpdates',
      value: {
        validator_updates: [
          {
            address: hex(joiner.address),
            pub_key: { type: 'tendermint/PubKeyEd25519', value: b64(joiner.pubKey) },
            voting_power: '5',
            proposer_priority: '0',
          },
        ],
      },
    });
    const results = (await h.backend.blocks.blockResults(height)) as Obj;
    expect(results.validator_updates).toEqual([
      { pub_key: { Sum: { type: 'tendermint.crypto.PublicKey_Ed25519', value: { ed25519: b64(joiner.pubKey) } } }, power: '5' },
    ]);

    // The set of H+1 is already fixed; the update joins at H+2, visible once H+1 is committed.
    expect(((await h.backend.blocks.validators()) as Obj)).toMatchObject({ block_height: (height + 1n).toString(), total: '1' });
    await h.nextBlock();
    const next = (await h.backend.blocks.validators()) as Obj;
    expect(next.block_height).toBe((height + 2n).toString());
    expect(next.total).toBe('2');
    expect(next.validators.map((v: Obj) => v.voting_power)).toEqual(['10', '5']);
    expect(next.validators[1].address).toBe(hex(joiner.address));
    const priorities = next.validators.map((v: Obj) => BigInt(v.proposer_priority));
    expect(priorities.reduce((a: bigint, b: bigint) => a + b, 0n)).toBeLessThanOrEqual(1n);

    const header = ((await h.backend.blocks.header(height + 1n)) as Obj).header;
    expect(header.next_validators_hash).not.toBe(header.validators_hash);

    const query = ((await h.backend.abci.abciQuery('/val', joiner.pubKey, 0n, false)) as Obj).response;
    const stored = ValidatorUpdate.decode(new BinaryReader(Buffer.from(query.value, 'base64')).bytes());
    expect(stored.power).toBe(5n);
    expect(b64(stored.pubKey.ed25519!)).toBe(b64(joiner.pubKey));
  });

  it('keeps signing with the devnet key; the new validator is absent from commits', async () => {
    await h.nextBlock();
    const seen = ((await h.backend.blocks.commit()) as Obj).signed_header.commit;
    expect(seen.signatures).toHaveLength(2);
    expect(seen.signatures[0].block_id_flag).toBe(2);
    expect(seen.signatures[1]).toEqual({ block_id_flag: 1, validator_address: '', timestamp: '0001-01-01T00:00:00Z', signature: null });
    const header = ((await h.backend.blocks.header()) as Obj).header;
    expect(header.proposer_address).toBe(hex(h.backend.devnet.identity.validatorKey.address));
  });

  it('removes a validator with power 0', async () => {
    const result = await commitTx(`val=ed25519!${b64(joiner.pubKey)}!0`);
    expect(result.tx_result.code).toBe(0);
    const results = (await h.backend.blocks.blockResults(BigInt(result.height))) as Obj;
    expect(results.validator_updates).toEqual([
      { pub_key: { Sum: { type: 'tendermint.crypto.PublicKey_Ed25519', value: { ed25519: b64(joiner.pubKey) } } } },
    ]);
    expect(((await h.backend.blocks.validators()) as Obj).total).toBe('2');
    await h.nextBlock();
    expect(((await h.backend.blocks.validators()) as Obj).total).toBe('1');
  });

  it('refuses updates the chain could not apply', async () => {
    const stranger = generateValidatorKey();
    const unknown = await commitTx(`val=ed25519!${b64(stranger.pubKey)}!0`);
    expect(unknown.tx_result.code).toBe(2);
    expect(unknown.tx_result.log).toBe(`validator ${b64(stranger.pubKey)} is not in the validator set`);
    const own = await commitTx(`val=ed25519!${b64(h.backend.devnet.identity.validatorKey.pubKey)}!0`);
    expect(own.tx_result.code).toBe(2);
    expect(own.tx_result.log).toContain("the devnet's own validator");
    expect(((await h.backend.mempool.checkTx(bytes(`val=secp256k1!${b64(stranger.pubKey)}!1`))) as Obj).code).toBe(2);
    expect(((await h.backend.mempool.checkTx(bytes('val=ed25519!AAAA!1'))) as Obj).code).toBe(2);
    expect(((await h.backend.blocks.validators()) as Obj).total).toBe('1');
  });
});
