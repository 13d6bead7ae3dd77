/**
 * An ephemeral EVM devnet for the tests: the node backend and the EVM backend over one devnet (blocks
 * made by the test), the dev wallets, and the Probe contract compiled with solc.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { Interface, Wallet, type TransactionRequest } from 'ethers';
import type { EmbeddedBackendConfig } from '../../../src/backends/embedded/devnet-node';
import { DevnetEvm } from '../../../src/backends/embedded/devnet-evm';
import type { BlockRef } from '../../../src/evm-rpc/evm-types';
import { devAccounts } from '../../../src/devnet/app/evm/dev-accounts';
import { startDevnet, type Harness } from './harness';

// solc ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const solc = require('solc') as { compile(input: string): string };

export const EVM_CHAIN_ID = 9000n;
export const GWEI = 1_000_000_000n;
export const LATEST: BlockRef = { kind: 'tag', tag: 'latest' };
export const PENDING: BlockRef = { kind: 'tag', tag: 'pending' };
export const at = (number: bigint | number): BlockRef => ({ kind: 'number', number: BigInt(number) });
export const NO_LIMITS = { gasCap: 25_000_000n, timeoutMs: 5_000 };

export interface Compiled {
  abi: Interface;
  bytecode: string;
}

let probe: Compiled | undefined;

/** The Probe fixture, compiled once per test file (Cancun, optimized). */
export function compileProbe(): Compiled {
  if (probe !== undefined) return probe;
  const input = {
    language: 'Solidity',
    sources: { 'Probe.sol': { content: readFileSync(join(__dirname, 'fixtures', 'Probe.sol'), 'utf8') } },
    settings: { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const contract = output.contracts['Probe.sol'].Probe;
  probe = { abi: new Interface(contract.abi), bytecode: '0x' + contract.evm.bytecode.object };
  return probe;
}

export interface EvmHarness extends Harness {
  evm: DevnetEvm;
  wallets: Wallet[];
  /** Signs a type-2 tx (nonce from the pending count, fee cap 10 gwei, tip 1 gwei unless given). */
  sign(wallet: Wallet, tx: TransactionRequest): Promise<Uint8Array>;
  /** Signs and sends through eth_sendRawTransaction; returns the hash. */
  send(wallet: Wallet, tx: TransactionRequest): Promise<string>;
  /** Deploys Probe(start) in a block of its own; returns its address. */
  deployProbe(wallet: Wallet, start?: bigint): Promise<string>;
}

export async function startEvmDevnet(overrides: Partial<EmbeddedBackendConfig> = {}): Promise<EvmHarness> {
  const h = await startDevnet({ evm: {}, ...overrides });
  const evm = new DevnetEvm(h.backend.devnet);
  const wallets = devAccounts().map((account) => new Wallet('0x' + Buffer.from(account.privateKey).toString('hex')));
  const sign = async (wallet: Wallet, tx: TransactionRequest): Promise<Uint8Array> => {
    const nonce = tx.nonce ?? Number(await evm.getTransactionCount(wallet.address.toLowerCase(), PENDING));
    const raw = await wallet.signTransaction({
      type: 2,
      chainId: EVM_CHAIN_ID,
      gasLimit: 1_000_000n,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
      ...tx,
      nonce,
    });
    return Buffer.from(raw.slice(2), 'hex');
  };
  const send = async (wallet: Wallet, tx: TransactionRequest): Promise<string> => evm.sendRawTransaction(await sign(wallet, tx));
  const deployProbe = async (wallet: Wallet, start = 0n): Promise<string> => {
    const { abi, bytecode } = compileProbe();
    const hash = await send(wallet, { data: bytecode + abi.encodeDeploy([start]).slice(2) });
    await h.nextBlock();
    const receipt = await evm.getTransactionReceipt(hash);
    if (receipt?.status !== '0x1') throw new Error(`deployment failed: ${JSON.stringify(receipt)}`);
    return receipt.contractAddress as string;
  };
  return { ...h, evm, wallets, sign, send, deployProbe };
}
