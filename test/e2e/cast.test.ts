/**
 * Foundry's `cast` (npm @foundry-rs/cast, the platform package's binary) as a user drives it against the
 * gateway's EVM RPC, over the embedded devnet and in upstream mode over anvil: each command's output is
 * checked against the value it must show.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { getAddress } from 'ethers';
import { ANVIL_KEY_0 } from '../support/anvil';
import { anvilEvmTarget, devnetEvmTarget } from '../support/backends';
import { compileProbe } from '../unit/embedded/evm-harness';

const CAST_BIN = join(__dirname, '..', '..', 'node_modules', '@foundry-rs', `cast-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`, 'bin', 'cast');
/** Funded on the devnet and on anvil (the development mnemonic's first account). */
const KEY = ANVIL_KEY_0;
const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const RECIPIENT = '0x' + '9a'.repeat(20);

interface Target {
  url: string;
  close(): Promise<void>;
}

const TARGETS: [string, () => Promise<Target>][] = [
  [
    'the embedded devnet',
    devnetEvmTarget,
  ],
  [
    'upstream mode over anvil',
    anvilEvmTarget,
  ],
];

describe.each(TARGETS)('cast against %s', (_, start) => {
  let target: Target;
  let probe: string;
  let creationBlock: number;
  const { abi, bytecode } = compileProbe();

  const cast = async (...args: string[]): Promise<string> => {
    const [command, ...rest] = args;
    try {
      const { stdout } = await promisify(execFile)(CAST_BIN, [command, '--rpc-url', target.url, ...rest], { timeout: 60_000, env: { ...process.env, FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' } });
      return stdout.trim();
    } catch (err) {
      throw new Error(`cast ${command} failed: ${(err as { stderr?: string }).stderr ?? String(err)}`);
    }
  };
  const json = async (...args: string[]): Promise<any> => JSON.parse(await cast(...args, '--json'));
  const rpc = async (method: string, ...params: string[]): Promise<any> => JSON.parse(await cast('rpc', method, ...params));

  beforeAll(async () => {
    target = await start();
    const receipt = await json('send', '--private-key', KEY, '--create', bytecode + abi.encodeDeploy([3n]).slice(2));
    expect(receipt.status).toBe('0x1');
    probe = receipt.contractAddress;
    creationBlock = Number(receipt.blockNumber);
  }, 90_000);
  afterAll(() => target?.close());

  it('chain-id, gas-price, base-fee and rpc passthrough', async () => {
    expect(await cast('chain-id')).toBe('9000');
    expect(await rpc('eth_chainId')).toBe('0x2328');
    // The suggestion is tip + base fee, and the base fee moves by at most 1/8 a block: cast shows what
    // eth_gasPrice answers, as of the block it asked in.
    const before = BigInt(await rpc('eth_gasPrice'));
    const shown = BigInt(await cast('gas-price'));
    const after = BigInt(await rpc('eth_gasPrice'));
    const [low, high] = before < after ? [before, after] : [after, before];
    expect(shown).toBeGreaterThanOrEqual((low * 7n) / 8n);
    expect(shown).toBeLessThanOrEqual((high * 9n) / 8n);
    const latest = await rpc('eth_getBlockByNumber', 'latest', 'false');
    expect(BigInt(await cast('base-fee', String(Number(latest.number))))).toBe(BigInt(latest.baseFeePerGas));
  });

  it('block: 0 is the genesis block and 1 its child; --full and --json', async () => {
    const zero = await json('block', '0');
    const one = await json('block', '1');
    expect(zero.number).toBe('0x0');
    expect(one.number).toBe('0x1');
    expect(one.parentHash).toBe(zero.hash);
    expect(await cast('block', '0', '--field', 'number')).toBe('0');
    const full = await json('block', String(creationBlock), '--full');
    expect(full.transactions[0]).toMatchObject({ from: FROM, to: null, blockNumber: '0x' + creationBlock.toString(16) });
    expect(await cast('block', String(creationBlock), '--full')).toContain(full.hash);
  });

  it('balance, nonce, send with value, receipt and tx', async () => {
    const nonce = BigInt(await cast('nonce', FROM));
    expect(nonce).toBe(BigInt(await rpc('eth_getTransactionCount', FROM, 'latest')));
    const before = BigInt(await cast('balance', RECIPIENT));
    const receipt = await json('send', '--private-key', KEY, RECIPIENT, '--value', '12345');
    expect(receipt).toMatchObject({ status: '0x1', from: FROM, to: RECIPIENT, gasUsed: '0x5208' });
    expect(BigInt(await cast('balance', RECIPIENT))).toBe(before + 12345n);
    expect(BigInt(await cast('nonce', FROM))).toBe(nonce + 1n);
    expect(await json('receipt', receipt.transactionHash)).toMatchObject({ status: '0x1', transactionHash: receipt.transactionHash, blockHash: receipt.blockHash });
    expect(await cast('receipt', receipt.transactionHash, 'status')).toBe('true');
    const tx = await json('tx', receipt.transactionHash);
    expect(tx).toMatchObject({ hash: receipt.transactionHash, from: FROM, to: RECIPIENT, value: '0x3039', blockHash: receipt.blockHash, type: '0x2' });
    expect(tx.yParity).toMatch(/^0x[01]$/);
    expect(await cast('tx', receipt.transactionHash, 'value')).toBe('12345');
  });

  it('code, storage, call, estimate, send to a contract and logs', async () => {
    expect(await cast('code', probe)).toBe(await rpc('eth_getCode', probe, 'latest'));
    expect(BigInt(await cast('storage', probe, '0'))).toBe(3n);
    expect(await cast('call', probe, 'count()(uint256)')).toBe('3');
    const estimate = BigInt(await cast('estimate', '--from', FROM, probe, 'bump(string)', 'cast'));
    expect(estimate).toBeGreaterThan(21_000n);
    expect(estimate).toBeLessThan(200_000n);
    const receipt = await json('send', '--private-key', KEY, probe, 'bump(string)', 'cast');
    expect(receipt.status).toBe('0x1');
    expect(receipt.logs).toHaveLength(1);
    expect(await cast('call', probe, 'count()(uint256)')).toBe('4');
    expect(BigInt(await cast('storage', probe, '0'))).toBe(4n);
    const logs = await json('logs', '--from-block', String(receipt.blockNumber), '--to-block', String(receipt.blockNumber), '--address', probe, 'Counted(address indexed,uint256 indexed,string)');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ address: probe, transactionHash: receipt.transactionHash, topics: [expect.any(String), '0x' + FROM.slice(2).padStart(64, '0'), '0x' + '4'.padStart(64, '0')] });
  });

  it('access-list: the slots a call touches', async () => {
    const out = await json('access-list', '--from', FROM, probe, 'bump(string)', 'listed');
    const list = out.accessList ?? out.access_list;
    expect(list).toHaveLength(1);
    expect(list[0].address.toLowerCase()).toBe(probe.toLowerCase());
    expect(list[0].storageKeys).toContain('0x' + '00'.repeat(32));
    expect(BigInt(out.gasUsed ?? out.gas_used)).toBeGreaterThan(21_000n);
    const text = await cast('access-list', '--from', FROM, probe, 'bump(string)', 'listed');
    expect(text).toContain(`gas used: ${BigInt(out.gasUsed ?? out.gas_used)}`);
    expect(text).toContain(`- address: ${getAddress(probe)}`);
  });
});
