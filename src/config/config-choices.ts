/** The fixed choices some keys take, named once for their checks and for the code that reads them. */

/** The EVM namespaces the gateway serves itself; plugins may register more. */
export const EVM_NAMESPACES = ['eth', 'web3', 'net', 'txpool', 'debug', 'personal', 'admin', 'miner'] as const;

/** Where the loader puts, on the `[json-rpc]` values it validates, the plugin namespaces `api` may name too. */
export const EXTRA_NAMESPACES = Symbol('extraNamespaces');

/** `[json-rpc] api`'s choices: the built-in namespaces and those of the loaded plugins. */
export const apiNamespaces = (values: object): readonly string[] => [
  ...EVM_NAMESPACES,
  ...((values as { [EXTRA_NAMESPACES]?: readonly string[] })[EXTRA_NAMESPACES] ?? []),
];

export const BACKEND_KINDS = ['embedded', 'upstream'] as const;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const LOG_FORMATS = ['auto', 'plain', 'json'] as const;

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
