/**
 * The execution-apis spec as data (methods with their result schemas, schemas as components) and a
 * client that creates real activity through a gateway: value transfers (legacy and EIP-1559), a
 * contract creation, calls that emit logs, a revert, an EIP-2930 access-list tx.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ContractFactory, Wallet, type Contract, type TransactionReceipt } from 'ethers';
import { compileProbe } from '../../unit/embedded/evm-harness';
import { SchemaValidator, type Schema } from './json-schema';
import { testProvider } from '../../support/ethers-provider';

// js-yaml (jest's own YAML reader) ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { load } = require('js-yaml') as { load(text: string): unknown };

export interface SpecMethod {
  name: string;
  result?: { schema: Schema };
}

const SRC = join(__dirname, 'src');

export function loadSpec(): { methods: Map<string, SpecMethod>; validator: SchemaValidator } {
  const components: Record<string, Schema> = {};
  for (const file of readdirSync(join(SRC, 'schemas'))) Object.assign(components, load(readFileSync(join(SRC, 'schemas', file), 'utf8')) as Record<string, Schema>);
  const methods = new Map<string, SpecMethod>();
  for (const file of readdirSync(join(SRC, 'eth'))) for (const m of load(readFileSync(join(SRC, 'eth', file), 'utf8')) as SpecMethod[]) methods.set(m.name, m);
  return { methods, validator: new SchemaValidator(components) };
}

/** One JSON-RPC call; the whole answer (result or error). */
export async function rpcCall(url: string, method: string, params: unknown[] = []): Promise<{ result?: any; error?: { code: number; message: string } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as { result?: any; error?: { code: number; message: string } };
}

export interface Activity {
  probe: string;
  probeCreation: TransactionReceipt;
  transfer1559: TransactionReceipt;
  transferLegacy: TransactionReceipt;
  bump: TransactionReceipt;
  accessListTx: TransactionReceipt;
  revert: TransactionReceipt;
  from: string;
}

/** Real activity through the gateway, signed with `key` (funded on both the devnet and anvil). */
export async function createActivity(url: string, key: string): Promise<Activity> {
  const provider = testProvider(url);
  const wallet = new Wallet(key, provider);
  const { abi, bytecode } = compileProbe();
  const wait = async (sent: Promise<{ wait(): Promise<TransactionReceipt | null> }>) => (await (await sent).wait())!;
  const probeContract = (await new ContractFactory(abi, bytecode, wallet).deploy(3n)) as Contract;
  const probeCreation = (await probeContract.deploymentTransaction()!.wait())!;
  const probe = (await probeContract.getAddress()).toLowerCase();
  const transfer1559 = await wait(wallet.sendTransaction({ type: 2, to: '0x' + '12'.repeat(20), value: 10n ** 15n }));
  const transferLegacy = await wait(wallet.sendTransaction({ type: 0, to: '0x' + '34'.repeat(20), value: 1234n }));
  const bump = await wait(wallet.sendTransaction({ type: 2, to: probe, data: abi.encodeFunctionData('bump', ['spec']) }));
  const accessListTx = await wait(
    wallet.sendTransaction({ type: 1, to: probe, data: abi.encodeFunctionData('bump', ['listed']), accessList: [{ address: probe, storageKeys: ['0x' + '00'.repeat(32)] }] }),
  );
  // Mined with an explicit gas limit, so that it is not refused by the estimate.
  let revert: TransactionReceipt;
  try {
    revert = await wait(wallet.sendTransaction({ type: 2, to: probe, data: abi.encodeFunctionData('fail'), gasLimit: 100_000n }));
  } catch (err) {
    revert = (err as { receipt: TransactionReceipt }).receipt;
  }
  provider.destroy();
  return { probe, probeCreation, transfer1559, transferLegacy, bump, accessListTx, revert, from: wallet.address.toLowerCase() };
}
