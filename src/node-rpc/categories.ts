/** The node RPC's own categories of routes (CometBFT's); a plugin's routes come in categories of their own. */
export const NODE_CATEGORIES: readonly string[] = ['info', 'tx', 'abci', 'evidence', 'unsafe', 'events'];

/** Whether a category's routes are served: CometBFT's always, a plugin's when listed in `[plugins] node_api`. */
export function nodeCategoryServed(group: string, nodeApi: readonly string[]): boolean {
  return NODE_CATEGORIES.includes(group) || nodeApi.includes(group);
}
