/**
 * How the node's answer to a delivery decides a job: taken, already known, unavailable (retried) or
 * refused for good (told to the callers as the node gave it).
 */
import { BackendUnavailableError } from '../../../src/backends/backend-errors';
import { namedParams } from '../../../src/backends/params-form';
import { uncachedDevnetMethods } from '../../support/devnet-methods';
import { HandlerTable } from '../../../src/backends/embedded/handler-table';
import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { eth_getTransactionByHash, eth_sendRawTransaction } from '../../../src/evm-rpc/definitions';
import type { RpcTransaction } from '../../../src/evm-rpc/evm-types';
import { tx as nodeTx } from '../../../src/node-rpc/info/info.methods';
import type { NodeCheckTx } from '../../../src/node-rpc/node-types';
import { broadcast_tx_sync } from '../../../src/node-rpc/tx/tx.methods';
import { Invoker } from '../../../src/rpc/invoker';
import { RetryLater, type BroadcastJob } from '../../../src/queue/broadcast-queue';
import { BackendDelivery } from '../../../src/queue/delivery';
import { ApplicationError } from '../../../src/rpc/errors';
import type { JsonObject } from '../../../src/rpc/json';

const nodeJob: BroadcastJob = { lane: 'node', id: 'ABCD', tx: Buffer.from('k=v').toString('base64') };
const evmJob: BroadcastJob = { lane: 'evm', id: '0xabcd', tx: Buffer.from([0xc0]).toString('base64') };

function delivery(node: { sync?: () => Promise<JsonObject>; tx?: () => Promise<JsonObject> }, evm: { send?: () => Promise<string>; byHash?: () => Promise<JsonObject | null> } = {}) {
  const env = { config: {} as GatewayConfigService };
  const nodeTable = new HandlerTable()
    .on(broadcast_tx_sync, async () => (await node.sync!()) as NodeCheckTx & { hash: string })
    .on(nodeTx, node.tx ?? (() => Promise.reject(new ApplicationError('tx (ABCD) not found'))));
  const evmTable = new HandlerTable()
    .on(eth_sendRawTransaction, () => evm.send!())
    .on(eth_getTransactionByHash, async () => ((await evm.byHash?.()) ?? null) as RpcTransaction | null);
  return new BackendDelivery(new Invoker(uncachedDevnetMethods(nodeTable, namedParams), env), new Invoker(uncachedDevnetMethods(evmTable), env));
}

const fail = (err: Error) => () => Promise.reject(err);

describe('delivering a node-RPC tx', () => {
  it('a check with code 0 is delivered, with broadcast_tx_sync’s answer', async () => {
    const answer = { code: 0, data: '', log: '', codespace: '', hash: 'ABCD' };
    expect(await delivery({ sync: async () => answer }).deliver(nodeJob, true)).toEqual({ status: 'accepted', check: answer });
  });

  it('a check with another code is refused, not retried', async () => {
    const answer = { code: 2, data: '', log: 'bad', codespace: '', hash: 'ABCD' };
    expect(await delivery({ sync: async () => answer }).deliver(nodeJob, true)).toEqual({ status: 'rejected', check: answer });
  });

  it('"tx already exists in cache" is delivered; whether it was the first attempt is kept', async () => {
    const d = delivery({ sync: fail(new ApplicationError('tx already exists in cache')) });
    expect(await d.deliver(nodeJob, true)).toEqual({ status: 'known', first: true, error: { code: -32000, message: 'tx already exists in cache' } });
    expect(await d.deliver(nodeJob, false)).toMatchObject({ status: 'known', first: false });
  });

  it('an unavailable backend, a full mempool or a failure that is not an answer: later', async () => {
    for (const err of [
      new BackendUnavailableError('no healthy upstream node available (a: unreachable)'),
      new BackendUnavailableError('upstream request failed: timeout after 5000 ms'),
      new ApplicationError('mempool is full: number of txs 5000 (max: 5000), total txs bytes 12 (max: 1073741824)'),
      new Error('connect ECONNREFUSED 127.0.0.1:26657'),
    ]) {
      await expect(delivery({ sync: fail(err) }).deliver(nodeJob, true)).rejects.toEqual(new RetryLater(err.message));
    }
  });

  it('a refused retry of a tx that is in a block was delivered by an earlier attempt', async () => {
    const answer = { code: 2, data: '', log: 'bad', codespace: '', hash: 'ABCD' };
    const d = delivery({ sync: async () => answer, tx: async () => ({ hash: 'ABCD', height: '5' }) });
    expect(await d.deliver(nodeJob, false)).toMatchObject({ status: 'known', first: false });
    expect(await d.deliver(nodeJob, true)).toEqual({ status: 'rejected', check: answer });
  });
});

describe('delivering an EVM tx', () => {
  it('taken: delivered', async () => {
    expect(await delivery({}, { send: async () => '0xabcd' }).deliver(evmJob, true)).toEqual({ status: 'accepted' });
  });

  it('refused with the node’s code, message and data', async () => {
    const d = delivery({}, { send: fail(new ApplicationError('insufficient funds for gas * price + value', -32000)) });
    expect(await d.deliver(evmJob, true)).toEqual({ status: 'rejected', error: { code: -32000, message: 'insufficient funds for gas * price + value' } });
  });

  it('"nonce too low" on a retry, for a tx the node has: delivered by an earlier attempt', async () => {
    const d = delivery({}, { send: fail(new ApplicationError('nonce too low: next nonce 3, tx nonce 2')), byHash: async () => ({ hash: '0xabcd' }) });
    expect(await d.deliver(evmJob, false)).toMatchObject({ status: 'known', first: false });
  });

  it('"already known" is delivered', async () => {
    const d = delivery({}, { send: fail(new ApplicationError('already known')) });
    expect(await d.deliver(evmJob, true)).toMatchObject({ status: 'known', first: true });
  });
});
