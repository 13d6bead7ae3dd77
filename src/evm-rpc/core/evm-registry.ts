/** Injection token of the EVM RPC's MethodRegistry; namespace modules and plugins register with it. */
export const EVM_REGISTRY = Symbol('EVM_REGISTRY');
