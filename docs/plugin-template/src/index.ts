/**
 * An rpc-gateway plugin package with both interfaces, loaded by one `[plugins] load` entry: the `hello`
 * namespace of the EVM RPC and the `hello` route category of the node RPC. Its methods show the kinds a
 * plugin usually has: one answered the same everywhere (cached, forwarded in upstream mode), ones computed
 * from what the backend answers (cached by their rule in the backend's response cache, in either mode), a
 * subscription, and counters of this gateway's own.
 */
import { ApplicationError, definePlugin, defineMethod, evmCodecs, evmMethods, foundAt, heightAt, IMMUTABLE, LATEST, NEVER, nodeMethods, optional, param } from 'rpc-gateway/plugin-api';
import type { BusEvent } from 'rpc-gateway/plugin-api';

/** `[plugins.hello]` of gateway.toml. */
interface HelloConfig {
  readonly greeting: string;
}

/** What hello_subscribe reads of a NewBlock event (its data as the node RPC's subscribe sends it). */
interface NewBlock {
  readonly value: { readonly block: { readonly header: { readonly height: string }; readonly data?: { readonly txs?: readonly string[] | null } } };
}

/** A new block in short: its height and how many transactions it has. */
function headSummary(event: BusEvent): { height: string; txs: number } {
  const { block } = (event.data as NewBlock).value;
  return { height: block.header.height, txs: block.data?.txs?.length ?? 0 };
}

const evm = definePlugin<HelloConfig>({
  name: 'hello',
  version: '0.1.0',
  apiVersion: 2,
  interface: 'evm',
  namespaces: ['hello'],
  config: {
    defaults: { greeting: 'hello' },
    validate: (table) => {
      if (typeof table.greeting !== 'string' || table.greeting === '') throw new Error(`greeting = ${JSON.stringify(table.greeting)}: expected a non-empty string`);
      return { greeting: table.greeting };
    },
  },
  methods: (ctx) => {
    const counts = { greeted: 0, summarized: 0, stopped: 0 };
    return [
      // hello_greet("ada") → "hello, ada": the same answer for the same name, so it is cached for good;
      // in upstream mode it goes to an upstream that serves `hello` as the client sent it.
      defineMethod({
        name: 'hello_greet',
        group: 'hello',
        params: [optional('name', evmCodecs.string)],
        idempotent: true,
        forward: true,
        cache: () => IMMUTABLE,
        handler: (args) => {
          counts.greeted++;
          return `${ctx.config.greeting}, ${args.name ?? 'world'}`;
        },
      }),
      // hello_head() → the chain's head as both interfaces see it, from the running backend.
      defineMethod({
        name: 'hello_head',
        group: 'hello',
        params: [],
        idempotent: true,
        cache: () => LATEST,
        handler: async (_args, call) => {
          // Any method nodes answer, by its definition: arguments and result typed (results as on the wire).
          const status = await ctx.node.invoke(nodeMethods.status, {}, call);
          const height: string | undefined = status.sync_info?.latest_block_height;
          if (height === undefined) throw new ApplicationError('the node reported no height');
          const evmBlock = await ctx.evm.invoke(evmMethods.eth_blockNumber, {}, call);
          return { node_height: height, evm_block: `0x${BigInt(evmBlock).toString(16)}` };
        },
      }),
      // hello_blockSummary("0x3") → the block's number, hash and transaction count, computed here from
      // eth_getBlockByNumber; a block at a number never changes, so the answer is kept in the backend's
      // response cache once found (the pool's in upstream mode, the devnet's on the embedded devnet) and the
      // handler runs once per block.
      defineMethod({
        name: 'hello_blockSummary',
        group: 'hello',
        params: [param('block', evmCodecs.blockNumber)],
        idempotent: true,
        cache: (args) => foundAt(args.block),
        height: (args) => heightAt(args.block),
        handler: async (args, call) => {
          counts.summarized++;
          const block = await ctx.evm.invoke(evmMethods.eth_getBlockByNumber, { block: args.block, fullTransactions: false }, call);
          return block === null ? null : { number: block.number, hash: block.hash, transactions: block.transactions.length };
        },
      }),
      // hello_subscribe() over WebSocket → a subscription id, then one eth_subscription notification per new
      // block: { height: "12", txs: 0 }. The gateway makes the id; eth_unsubscribe(id) and the connection's
      // close end it (and call the function `start` returns), and the subscription caps count it, as they
      // do eth_subscribe's.
      defineMethod({
        name: 'hello_subscribe',
        group: 'hello',
        params: [],
        websocketOnly: true,
        handler: (_args, call) =>
          ctx.subscriptions.open(call, 'hello_heads', (push, end) => {
            // Returning push's promise makes the next blocks wait while a slow client reads this one.
            const source = ctx.events.subscribe("tm.event = 'NewBlock'", (event) => push(headSummary(event)));
            source.catch((err: unknown) => end(`new blocks are not available: ${String(err)}`));
            return () => {
              counts.stopped++;
              void source.then((stop) => stop(), () => undefined);
            };
          }),
      }),
      // hello_counts() → { greeted, summarized, stopped }: how many times this gateway's greet and summary
      // handlers ran and its subscriptions were stopped (never cached nor forwarded).
      defineMethod({ name: 'hello_counts', group: 'hello', params: [], cache: () => NEVER, handler: () => ({ ...counts }) }),
    ];
  },
});

const node = definePlugin({
  name: 'hello-node',
  version: '0.1.0',
  apiVersion: 2,
  interface: 'node',
  namespaces: ['hello'],
  methods: (ctx) => [
    // GET /hello_status (or JSON-RPC, or WebSocket) → { network, height, pending_txs }, computed from two
    // reads of the running backend; it changes with every block, so it is cached for a block at most.
    defineMethod({
      name: 'hello_status',
      group: 'hello',
      params: [],
      idempotent: true,
      cache: () => LATEST,
      handler: async (_args, call) => {
        const status = await ctx.node.invoke(nodeMethods.status, {}, call);
        const mempool = await ctx.node.invoke(nodeMethods.num_unconfirmed_txs, {}, call);
        return { network: status.node_info.network, height: status.sync_info.latest_block_height, pending_txs: mempool.total };
      },
    }),
  ],
});

// Each manifest is a plugin of its own name (`hello`, `hello-node`): its config table, its metrics label.
export default { evm, node };
