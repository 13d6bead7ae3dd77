import type { Executor } from '../rpc/engine';

/**
 * Optional: how a backend runs admitted calls instead of their handlers (the upstream backend forwards
 * them as the client sent them). Provided per interface; absent = every call runs its handler.
 */
export const NODE_EXECUTOR = Symbol('NODE_EXECUTOR');
export const EVM_EXECUTOR = Symbol('EVM_EXECUTOR');
export type BackendExecutor = Executor;
