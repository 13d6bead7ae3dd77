/**
 * broadcast_evidence (rpc/core/evidence.go with the evidence pool's checks). DuplicateVoteEvidence is
 * validated and verified in full, and kept as pending once it passes; the devnet never puts evidence
 * into a block. LightClientAttackEvidence gets its basic checks; the devnet cannot verify a
 * conflicting light block, so it refuses such evidence afterwards.
 */
import type { JsonObject } from '../../../rpc/json';
import { ApplicationError, InvalidParamsError } from '../../../rpc/errors';
import { toHex } from '../../../devnet/bytes';
import type { Devnet } from '../../../devnet/devnet';
import { EvidenceDecodeError, int64Field, JsonFields, objectField } from '../../../devnet/evidence/amino-decode';
import { decodeDuplicateVoteEvidence, DuplicateVoteEvidence, duplicateVoteHash, duplicateVoteString, validateDuplicateVote, verifyDuplicateVote } from '../../../devnet/evidence/duplicate-vote';
import { goTimeString } from '../../../devnet/evidence/go-format';
import { timestampFromNanos, timestampToNanos } from '../../../devnet/time';

export class EvidenceRpc {
  /** hex(hash) of the evidence verified so far. */
  private readonly pending = new Set<string>();

  constructor(private readonly devnet: Devnet) {}

  async broadcastEvidence(evidence: JsonObject | null): Promise<JsonObject> {
    if (evidence === null) throw new ApplicationError('no evidence was provided');
    try {
      const value = objectField(evidence, 'value') ?? {};
      switch (evidence.type) {
        case 'tendermint/DuplicateVoteEvidence':
          return await this.duplicateVote(decodeDuplicateVoteEvidence(value));
        case 'tendermint/LightClientAttackEvidence':
          return lightClientAttack(value);
        default:
          throw new EvidenceDecodeError(
            typeof evidence.type === 'string' && evidence.type !== '' ? `unknown type "${evidence.type}"` : 'interface type cannot be empty',
          );
      }
    } catch (err) {
      if (err instanceof EvidenceDecodeError) {
        throw new InvalidParamsError('Invalid params', `error converting json params to arguments: ${err.message}`);
      }
      throw err;
    }
  }

  private async duplicateVote(ev: DuplicateVoteEvidence): Promise<JsonObject> {
    const basic = validateDuplicateVote(ev);
    if (basic !== undefined) throw new ApplicationError(`evidence.ValidateBasic failed: ${basic}`);
    const checked = ev as Required<DuplicateVoteEvidence>;
    const hash = duplicateVoteHash(checked);
    if (!this.pending.has(toHex(hash))) {
      const reason = await this.verify(checked);
      if (reason !== undefined) {
        throw new ApplicationError(`failed to add evidence: Invalid evidence: ${reason}. Evidence: ${duplicateVoteString(ev)}`);
      }
      this.pending.add(toHex(hash));
    }
    return { hash: Buffer.from(hash).toString('base64') };
  }

  /** The evidence pool's verify(): a stored block at the height, its time, the age limits, the votes. */
  private async verify(ev: Required<DuplicateVoteEvidence>): Promise<string | undefined> {
    const height = ev.voteA.height;
    const { store, state } = this.devnet;
    const [meta, validators] = await Promise.all([store.loadMeta(height), store.loadValidators(height)]);
    if (meta === undefined || validators === undefined) return `don't have header #${height}`;
    if (timestampToNanos(ev.timestamp) !== timestampToNanos(meta.header.time)) {
      return `evidence has a different time to the block it is associated with (${goTimeString(ev.timestamp)} != ${goTimeString(meta.header.time)})`;
    }
    const { maxAgeNumBlocks, maxAgeDurationNs } = state.consensusParams.evidence;
    const ageNs = timestampToNanos(state.lastBlockTime) - timestampToNanos(meta.header.time);
    if (state.lastBlockHeight - height > maxAgeNumBlocks && ageNs > maxAgeDurationNs) {
      const limit = timestampFromNanos(timestampToNanos(state.lastBlockTime) + maxAgeDurationNs);
      return (
        `evidence from height ${height} (created at: ${goTimeString(meta.header.time)}) is too old; ` +
        `min height is ${state.lastBlockHeight - maxAgeNumBlocks} and evidence can not be older than ${goTimeString(limit)}`
      );
    }
    return verifyDuplicateVote(ev, { chainId: state.chainId, validators: validators.validators });
  }
}

/** LightClientAttackEvidence.ValidateBasic's own checks, then the devnet's refusal. */
function lightClientAttack(value: JsonFields): never {
  const basic = (reason: string): never => {
    throw new ApplicationError(`evidence.ValidateBasic failed: ${reason}`);
  };
  const block = objectField(value, 'ConflictingBlock');
  if (block === undefined) basic('conflicting block is nil');
  const signedHeader = objectField(block as JsonFields, 'signed_header');
  if (signedHeader === undefined) basic('conflicting block missing signed header');
  const header = objectField(signedHeader as JsonFields, 'header');
  if (header === undefined) basic('conflicting block missing header');
  if (int64Field(value, 'TotalVotingPower') <= 0n) basic('negative or zero total voting power');
  const commonHeight = int64Field(value, 'CommonHeight');
  if (commonHeight <= 0n) basic('negative or zero common height');
  const conflictingHeight = int64Field(header as JsonFields, 'height');
  if (commonHeight > conflictingHeight) {
    basic(`common height is ahead of the conflicting block height (${commonHeight} > ${conflictingHeight})`);
  }
  throw new ApplicationError('failed to add evidence: the devnet cannot verify light client attack evidence');
}
