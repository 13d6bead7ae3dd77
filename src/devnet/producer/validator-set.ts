/**
 * CometBFT's ValidatorSet arithmetic (types/validator_set.go): canonical order, updates with the
 * priorities new validators start with, and proposer-priority rotation. Sets are values: every
 * operation returns a new one.
 */
import { addressOf } from '../chain/keys';
import type { Validator } from '../chain/types';
import type { ValidatorUpdate } from '../app/application';
import { toHex } from '../bytes';

export interface ValidatorSet {
  /** Voting power descending, then address ascending. */
  validators: Validator[];
  /** Address of the validator the rotation picked last. */
  proposer: Uint8Array;
}

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
/** PriorityWindowSizeFactor. */
const PRIORITY_WINDOW_SIZE_FACTOR = 2n;

export function totalVotingPower(set: ValidatorSet): bigint {
  return set.validators.reduce((sum, v) => sum + v.votingPower, 0n);
}

export function byVotingPower(a: Validator, b: Validator): number {
  if (a.votingPower !== b.votingPower) return a.votingPower > b.votingPower ? -1 : 1;
  return Buffer.compare(a.address, b.address);
}

/** NewValidatorSet(genesis validators): priorities initialised, then rotated once. */
export function newValidatorSet(updates: ValidatorUpdate[]): ValidatorSet {
  return incrementProposerPriority(applyValidatorUpdates({ validators: [], proposer: new Uint8Array(0) }, updates), 1);
}

/** UpdateWithChangeSet; the caller has validated the changes (no duplicates, removals exist). */
export function applyValidatorUpdates(set: ValidatorSet, updates: ValidatorUpdate[]): ValidatorSet {
  if (updates.length === 0) return set;
  const current = new Map(set.validators.map((v) => [toHex(v.address), v]));
  const afterUpdates =
    totalVotingPower(set) +
    updates.reduce((sum, u) => sum + (u.power === 0n ? 0n : u.power - (current.get(toHex(addressOf(u.pubKey)))?.votingPower ?? 0n)), 0n);
  const next = new Map(current);
  for (const u of updates) {
    const address = addressOf(u.pubKey);
    const key = toHex(address);
    if (u.power === 0n) {
      next.delete(key);
      continue;
    }
    // A new validator starts far behind so that joining does not make it the next proposer.
    const priority = current.get(key)?.proposerPriority ?? -(afterUpdates + (afterUpdates >> 3n));
    next.set(key, { address, pubKey: u.pubKey, votingPower: u.power, proposerPriority: priority });
  }
  const validators = [...next.values()];
  const total = validators.reduce((sum, v) => sum + v.votingPower, 0n);
  const centered = shiftByAverage(rescale(validators, PRIORITY_WINDOW_SIZE_FACTOR * total));
  return { validators: centered.sort(byVotingPower), proposer: set.proposer };
}

/** IncrementProposerPriority(times). */
export function incrementProposerPriority(set: ValidatorSet, times: number): ValidatorSet {
  const total = totalVotingPower(set);
  let validators = shiftByAverage(rescale(set.validators, PRIORITY_WINDOW_SIZE_FACTOR * total));
  let proposer = set.proposer;
  for (let i = 0; i < times; i++) {
    validators = validators.map((v) => ({ ...v, proposerPriority: clip(v.proposerPriority + v.votingPower) }));
    const most = validators.reduce((best, v) => (mostPriority(best, v) === v ? v : best));
    proposer = most.address;
    validators = validators.map((v) => (v === most ? { ...v, proposerPriority: clip(v.proposerPriority - total) } : v));
  }
  return { validators, proposer };
}

/** RescalePriorities: keeps the spread of priorities within `diffMax`. */
function rescale(validators: Validator[], diffMax: bigint): Validator[] {
  if (diffMax <= 0n || validators.length === 0) return validators;
  const priorities = validators.map((v) => v.proposerPriority);
  const diff = priorities.reduce((a, b) => (a > b ? a : b)) - priorities.reduce((a, b) => (a < b ? a : b));
  if (diff <= diffMax) return validators;
  const ratio = (diff + diffMax - 1n) / diffMax;
  return validators.map((v) => ({ ...v, proposerPriority: v.proposerPriority / ratio }));
}

function shiftByAverage(validators: Validator[]): Validator[] {
  if (validators.length === 0) return validators;
  const n = BigInt(validators.length);
  const sum = validators.reduce((s, v) => s + v.proposerPriority, 0n);
  // big.Int.Div is Euclidean: it rounds toward negative infinity for a positive divisor.
  const avg = sum / n - (sum % n < 0n ? 1n : 0n);
  return validators.map((v) => ({ ...v, proposerPriority: clip(v.proposerPriority - avg) }));
}

/** CompareProposerPriority: higher priority wins, then the lower address. */
function mostPriority(a: Validator, b: Validator): Validator {
  if (a.proposerPriority !== b.proposerPriority) return a.proposerPriority > b.proposerPriority ? a : b;
  return Buffer.compare(a.address, b.address) <= 0 ? a : b;
}

function clip(value: bigint): bigint {
  return value > MAX_INT64 ? MAX_INT64 : value < MIN_INT64 ? MIN_INT64 : value;
}
