import { Dispatcher } from '../rpc/dispatcher';

/** The node RPC's dispatcher (its own registry, guards and error dialect). */
export class NodeDispatcher extends Dispatcher {}
