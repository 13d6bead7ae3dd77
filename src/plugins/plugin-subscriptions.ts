import type { ModuleRef } from '@nestjs/core';
import { SubscriptionMethods as EvmSubscriptions } from '../evm-rpc/subscriptions/subscription.methods';
import { SubscriptionMethods as NodeSubscriptions } from '../node-rpc/subscriptions/subscription.methods';
import type { CallContext } from '../rpc/call-context';
import { ApplicationError } from '../rpc/errors';
import type { PluginSubscriptions } from './api';

/**
 * `ctx.subscriptions` of a plugin of `rpc`: its subscriptions opened through the interface's own registry
 * (eth_subscribe's, or the node RPC's subscribe's), found when first used.
 */
export function pluginSubscriptions(rpc: 'evm' | 'node', modules: ModuleRef): PluginSubscriptions {
  const registry = <T>(type: new (...args: never[]) => T): T => {
    try {
      return modules.get(type, { strict: false });
    } catch {
      throw new ApplicationError('subscriptions are not served here');
    }
  };
  return {
    open: (call: CallContext, name, start) =>
      rpc === 'evm'
        ? registry(EvmSubscriptions).open(call, name, (send, drop) => start(send, (reason) => drop(new ApplicationError(reason))))
        : registry(NodeSubscriptions).open(call, name, start),
  };
}
