import { Dispatcher } from '../../rpc/dispatcher';

/** The EVM RPC's dispatcher (its own registry, guards and error dialect). */
export class EvmDispatcher extends Dispatcher {}
