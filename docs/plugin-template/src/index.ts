/**
 * An rpc-gateway plugin: the `hello` namespace of the EVM RPC. Its methods show the kinds a plugin
 * usually has: one answered the same everywhere (cached, forwarded in upstream mode), ones computed
 * from what the backend answers (cached by their rule in both modes), and ones of this gateway's own.
 */
import { ApplicationError, definePlugin, defineMethod, evmCodecs, evmMethods, foundAt, heightAt, IMMUTABLE, LATEST, NEVER, nodeMethods, optional, param } from 'rpc-gateway/plugin-api';

/** `[plugins.hello]` of gateway.toml. */
interface HelloConfig {
  readonly greeting: string;
}

export default definePlugin<HelloConfig>({
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
    let greeted = 0;
    let summarized = 0;
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
          greeted++;
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
      // eth_getBlockByNumber; a block at a number never changes, so the answer is cached once found and
      // the handler runs once per block, on the devnet and in upstream mode alike.
      defineMethod({
        name: 'hello_blockSummary',
        group: 'hello',
        params: [param('block', evmCodecs.blockNumber)],
        idempotent: true,
        cache: (args) => foundAt(args.block),
        height: (args) => heightAt(args.block),
        handler: async (args, call) => {
          summarized++;
          const block = await ctx.evm.invoke(evmMethods.eth_getBlockByNumber, { block: args.block, fullTransactions: false }, call);
          return block === null ? null : { number: block.number, hash: block.hash, transactions: block.transactions.length };
        },
      }),
      // hello_greeted() / hello_summarized() → how many times this gateway's handlers ran (never cached nor forwarded).
      defineMethod({ name: 'hello_greeted', group: 'hello', params: [], cache: () => NEVER, handler: () => greeted }),
      defineMethod({ name: 'hello_summarized', group: 'hello', params: [], cache: () => NEVER, handler: () => summarized }),
    ];
  },
});
