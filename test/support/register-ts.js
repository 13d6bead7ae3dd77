/**
 * `node -r` hook: compiles the project's TypeScript on require, with the options jest uses, and resolves
 * the plugin API's package name to its source (as jest's moduleNameMapper does), so that plugins loaded by
 * a gateway started from the sources share its modules.
 */
const { transformSync } = require('@swc/core');
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');

const PLUGIN_API = join(__dirname, '..', '..', 'src', 'plugins', 'api.ts');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'rpc-gateway/plugin-api' ? PLUGIN_API : resolveFilename.call(this, request, ...rest);
};

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    module: { type: 'commonjs' },
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
  });
  module._compile(code, filename);
};
