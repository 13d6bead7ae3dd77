/**
 * The node's identity, set up as `cometbft init` does on the first start: `config/genesis.json`,
 * `config/priv_validator_key.json`, `config/node_key.json` and `data/priv_validator_state.json` under
 * the home directory, reused on every later start. An ephemeral devnet keeps them in memory only.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { randomBytes } from 'crypto';
import { join } from 'path';
import { generateValidatorKey, keyFromSeed, loadOrCreateNodeKey, loadOrCreateValidatorKey, NodeKey, nodeIdOf, ValidatorKey } from '../chain/keys';
import { GenesisDoc, genesisFileText, parseGenesisDoc } from './genesis-doc';

export interface NodeIdentity {
  genesis: GenesisDoc;
  validatorKey: ValidatorKey;
  nodeKey: NodeKey;
}

/** FilePVLastSignState of a validator that has not signed yet. */
const INITIAL_SIGN_STATE = JSON.stringify({ height: '0', round: 0, step: 0 }, null, 2);

/** `newGenesis` makes the genesis of a new home; an existing genesis.json is kept as it is. */
export function initNodeHome(home: string, newGenesis: (validatorKey: ValidatorKey) => GenesisDoc): NodeIdentity {
  const config = join(home, 'config');
  const data = join(home, 'data');
  mkdirSync(config, { recursive: true });
  mkdirSync(data, { recursive: true });
  const validatorKey = loadOrCreateValidatorKey(join(config, 'priv_validator_key.json'));
  const nodeKey = loadOrCreateNodeKey(join(config, 'node_key.json'));
  const statePath = join(data, 'priv_validator_state.json');
  if (!existsSync(statePath)) writeFileSync(statePath, INITIAL_SIGN_STATE, { mode: 0o600 });
  const genesisPath = join(config, 'genesis.json');
  if (!existsSync(genesisPath)) {
    writeFileSync(genesisPath, genesisFileText(newGenesis(validatorKey)), { mode: 0o644 });
  }
  return { genesis: parseGenesisDoc(readFileSync(genesisPath, 'utf8'), genesisPath), validatorKey, nodeKey };
}

export function ephemeralIdentity(newGenesis: (validatorKey: ValidatorKey) => GenesisDoc): NodeIdentity {
  const validatorKey = generateValidatorKey();
  const nodeKey = keyFromSeed(randomBytes(32));
  return {
    genesis: newGenesis(validatorKey),
    validatorKey,
    nodeKey: { ...nodeKey, id: nodeIdOf(nodeKey.pubKey) },
  };
}

/** Where the devnet's database lives under the home directory. */
export function databasePath(home: string): string {
  return join(home, 'data', 'devnet.db');
}
