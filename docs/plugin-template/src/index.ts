/**
 * An rpc-gateway plugin: the `hello` namespace of the EVM RPC. Three methods show the three kinds a
 * plugin usually has: one answered the same everywhere (cached, forwarded in upstream mode), one read
 * from the backend, and one of this gateway's own.
 */
import { ApplicationError, definePlugin, defineMethod, evmCodecs, IMMUTABLE, LATEST, NEVER, optional, PLUGIN_API_VERSION } from 'rpc-gateway/plugin-api';

/** `[plugins.hello]` of gateway.toml. */
interface HelloConfig {
  readonly greeting: string;
}

export default definePlugin<HelloConfig>({
  name: 'hello',
  version: '0.1.0',
  apiVersion: PLUGIN_API_VERSION,
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
        handler: async () => {
          const status = (await ctx.node.status()) as { sync_info?: { latest_block_height?: string } };
          const height = status.sync_info?.latest_block_height;
          if (height === undefined) throw new ApplicationError('the node reported no height');
          return { node_height: height, evm_block: `0x${(await ctx.evm.blockNumber()).toString(16)}` };
        },
      }),
      // hello_greeted() → how many greetings this gateway's handler made (never cached nor forwarded).
      defineMethod({ name: 'hello_greeted', group: 'hello', params: [], cache: () => NEVER, handler: () => greeted }),
    ];
  },
});
