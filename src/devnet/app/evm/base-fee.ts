/** The EIP-1559 base fee of a block, from its parent's (elasticity 2, change denominator 8). */

const ELASTICITY_MULTIPLIER = 2n;
const BASE_FEE_CHANGE_DENOMINATOR = 8n;

export interface BaseFeeParent {
  baseFee: bigint;
  gasUsed: bigint;
  gasLimit: bigint;
}

export function nextBaseFee(parent: BaseFeeParent): bigint {
  const target = parent.gasLimit / ELASTICITY_MULTIPLIER;
  if (target === 0n || parent.gasUsed === target) return parent.baseFee;
  if (parent.gasUsed > target) {
    const delta = (parent.baseFee * (parent.gasUsed - target)) / target / BASE_FEE_CHANGE_DENOMINATOR;
    return parent.baseFee + (delta > 1n ? delta : 1n);
  }
  const delta = (parent.baseFee * (target - parent.gasUsed)) / target / BASE_FEE_CHANGE_DENOMINATOR;
  return parent.baseFee - delta;
}
