import { Logger } from '@nestjs/common';
import type { ErrorDialect, RpcRequest } from '../../rpc/dispatcher';
import { InternalError, MethodNotFoundError, RpcError } from '../../rpc/errors';

/**
 * go-ethereum's error envelope: the code and message go on the wire as they are (backend failures
 * are ApplicationErrors, -32000 unless e.g. 3 for a revert with its data); a method that is unknown,
 * disabled or not implemented is -32601 naming it; anything unexpected is -32603 and is logged.
 */
export class EvmErrorDialect implements ErrorDialect {
  private readonly logger = new Logger('EvmRpc');

  toRpcError(err: unknown, request: RpcRequest): RpcError {
    if (err instanceof MethodNotFoundError) {
      return new MethodNotFoundError(err.reason, `the method ${request.method} does not exist/is not available`);
    }
    if (err instanceof RpcError) return err;
    this.logger.error(`${request.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return new InternalError('method handler crashed');
  }
}
