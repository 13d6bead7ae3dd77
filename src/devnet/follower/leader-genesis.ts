/**
 * What a follower learns from its leader before it opens its chain: the genesis it must share, the
 * key the leader signs blocks with (the kvstore keeps that validator in the set) and the leader's
 * height. Anything that makes following impossible stops start-up with one line.
 */
import { ConfigError } from '../../config/config-error';
import type { JsonObject } from '../json';
import { genesisFileText, parseGenesisDoc, type GenesisDoc } from '../genesis/genesis-doc';
import type { LeaderConnection } from './leader-connection';

export interface LeaderInfo {
  genesis: GenesisDoc;
  signerPubKey: Uint8Array;
  height: bigint;
}

export async function readLeader(leader: LeaderConnection, runsEvm: boolean): Promise<LeaderInfo> {
  function fail(why: string): never {
    throw new ConfigError(`[devnet] follow = ${JSON.stringify(leader.url)}: ${why}`);
  }
  let answers: JsonObject[];
  try {
    answers = await Promise.all([leader.call('genesis'), leader.call('status')]);
  } catch (err) {
    fail(`cannot read the leader's genesis and status: ${(err as Error).message}`);
  }
  const [{ genesis: genesisJson }, status] = answers;
  let genesis: GenesisDoc;
  try {
    genesis = parseGenesisDoc(JSON.stringify(genesisJson), "the leader's genesis");
  } catch (err) {
    fail((err as Error).message);
  }
  // A devnet that runs the EVM limits block.max_gas to the EVM block gas limit; one without it does not.
  const leaderRunsEvm = genesis.consensusParams.block.maxGas > 0n;
  if (leaderRunsEvm !== runsEvm) {
    fail(`the leader ${leaderRunsEvm ? 'runs' : 'does not run'} the EVM, this gateway ${runsEvm ? 'does' : 'does not'}`);
  }
  const signer = (status.validator_info as { pub_key?: { value?: string } } | undefined)?.pub_key?.value;
  const height = (status.sync_info as { latest_block_height?: string } | undefined)?.latest_block_height;
  if (signer === undefined || height === undefined) fail("the leader's status is not a node's");
  return { genesis, signerPubKey: new Uint8Array(Buffer.from(signer, 'base64')), height: BigInt(height) };
}

/** A home that already has a genesis must be the leader's chain. */
export function checkSameGenesis(leader: LeaderConnection, ours: GenesisDoc, leaders: GenesisDoc): void {
  if (genesisFileText(ours) !== genesisFileText(leaders)) {
    throw new ConfigError(
      `[devnet] follow = ${JSON.stringify(leader.url)}: the home's genesis.json (chain ${ours.chainId}) is not the leader's (chain ${leaders.chainId}); follow from a new home`,
    );
  }
}
