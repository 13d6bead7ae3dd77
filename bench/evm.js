'use strict';
/**
 * EVM JSON-RPC over the embedded devnet: eth_blockNumber, eth_getBlockByNumber (full txs) and an
 * eth_call of a contract. Prints requests/s, p50/p99 latency and the gateway's CPU time per request.
 */
const { ContractFactory, JsonRpcProvider, Wallet } = require('ethers');
const solc = require('solc');
const { freePort, startGateway, measureCase, table } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const SOURCE = 'pragma solidity ^0.8.24; contract Counter { uint256 public n = 41; function next() external view returns (uint256) { return n + 1; } }';

function compile() {
  const input = {
    language: 'Solidity',
    sources: { 'Counter.sol': { content: SOURCE } },
    settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const c = JSON.parse(solc.compile(JSON.stringify(input))).contracts['Counter.sol'].Counter;
  return { abi: c.abi, bytecode: '0x' + c.evm.bytecode.object };
}

async function main() {
  const port = await freePort();
  const gw = await startGateway(['--json-rpc.enable', '--json-rpc.address', `127.0.0.1:${port}`, '--json-rpc.ws-address', '127.0.0.1:0']);
  const url = `http://127.0.0.1:${port}`;
  try {
    const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, pollingInterval: 100 });
    const wallet = new Wallet(DEV_KEY, provider);
    const { abi, bytecode } = compile();
    const counter = await new ContractFactory(abi, bytecode, wallet).deploy();
    const deployed = await (await counter.deploymentTransaction().wait());
    const data = counter.interface.encodeFunctionData('next');
    const rpc = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    const cases = [
      { name: 'eth_blockNumber', body: rpc('eth_blockNumber', []) },
      { name: 'eth_getBlockByNumber full', body: rpc('eth_getBlockByNumber', ['0x' + deployed.blockNumber.toString(16), true]) },
      { name: 'eth_call', body: rpc('eth_call', [{ to: await counter.getAddress(), data }, 'latest']) },
    ];
    const rows = [];
    for (const c of cases) rows.push(await measureCase(c.name, gw.pid, { url, method: 'POST', body: c.body }, DURATION));
    provider.destroy();
    table(rows);
  } finally {
    await gw.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
