/**
 * The consensus state routes. The devnet's consensus sits between blocks: height H+1, round 0, step
 * RoundStepNewHeight (1), waiting out the block time after committing H with its validator's
 * precommit, which is what a single-validator node shows most of the time.
 */
import type { Json, JsonObject } from '../../../rpc/json';
import type { Commit } from '../../../devnet/chain/types';
import { hexJson, timestampJson, validatorJson } from '../../../devnet/chain/wire';
import type { Devnet } from '../../../devnet/devnet';
import { totalVotingPower, ValidatorSet } from '../../../devnet/producer/validator-set';
import { addMillis } from '../../../devnet/time';
import { asJson } from '../../../devnet/json';
import { voteString } from '../../../devnet/chain/vote-string';

/** RoundStepNewHeight. */
const STEP_NEW_HEIGHT = 1;
const PRECOMMIT = 2;

export class ConsensusRpc {
  constructor(
    private readonly devnet: Devnet,
    private readonly blockTimeMs: number,
  ) {}

  async dumpConsensusState(): Promise<JsonObject> {
    const { state } = this.devnet;
    const lastCommit = await this.lastCommit();
    const commitTime = lastCommit ? committedAt(lastCommit) : undefined;
    return {
      round_state: {
        height: (state.lastBlockHeight + 1n).toString(),
        round: 0,
        step: STEP_NEW_HEIGHT,
        start_time: this.startTime(lastCommit),
        commit_time: commitTime ?? '0001-01-01T00:00:00Z',
        validators: validatorSetJson(state.validators),
        proposal: null,
        proposal_block: null,
        proposal_block_parts: null,
        locked_round: -1,
        locked_block: null,
        locked_block_parts: null,
        valid_round: -1,
        valid_block: null,
        valid_block_parts: null,
        votes: this.heightVoteSet(),
        commit_round: -1,
        last_commit: lastCommit ? lastCommitJson(lastCommit, state.lastValidators) : null,
        last_validators: validatorSetJson(state.lastValidators),
        triggered_timeout_precommit: false,
      },
      peers: [],
    };
  }

  async consensusState(): Promise<JsonObject> {
    const { state } = this.devnet;
    const proposerIndex = state.validators.validators.findIndex((v) => Buffer.from(v.address).equals(state.validators.proposer));
    return {
      round_state: {
        'height/round/step': `${state.lastBlockHeight + 1n}/0/${STEP_NEW_HEIGHT}`,
        start_time: this.startTime(await this.lastCommit()),
        proposal_block_hash: '',
        locked_block_hash: '',
        valid_block_hash: '',
        height_vote_set: this.heightVoteSet(),
        proposer: { address: hexJson(state.validators.proposer), index: proposerIndex },
      },
    };
  }

  private lastCommit(): Promise<Commit | undefined> {
    return this.devnet.store.loadSeenCommit(this.devnet.latestHeight);
  }

  /** The next height starts timeout_commit (the block time) after the last commit. */
  private startTime(lastCommit: Commit | undefined): string {
    const signed = lastCommit?.signatures.find((s) => s.blockIdFlag === 2);
    const base = signed?.timestamp ?? this.devnet.state.lastBlockTime;
    return timestampJson(addMillis(base, this.blockTimeMs));
  }

  /** Round 0 of the new height, where no one has voted yet. */
  private heightVoteSet(): Json {
    const set = this.devnet.state.validators;
    const votes = set.validators.map(() => 'nil-Vote');
    const summary = `${bitArray(set.validators.map(() => false))} 0/${totalVotingPower(set)} = 0.00`;
    return [{ round: 0, prevotes: votes, prevotes_bit_array: summary, precommits: votes, precommits_bit_array: summary }];
  }
}

function committedAt(commit: Commit): string | undefined {
  const signed = commit.signatures.find((s) => s.blockIdFlag === 2);
  return signed && timestampJson(signed.timestamp);
}

function validatorSetJson(set: ValidatorSet): Json {
  const proposer = set.validators.find((v) => Buffer.from(v.address).equals(set.proposer));
  return {
    validators: set.validators.map((v) => asJson(validatorJson(v))),
    proposer: proposer === undefined ? null : asJson(validatorJson(proposer)),
  };
}

/** The VoteSet of the last height's precommits, as its MarshalJSON writes it. */
function lastCommitJson(commit: Commit, set: ValidatorSet): Json {
  const signed = set.validators.map((v, index) => {
    const sig = commit.signatures[index];
    return sig?.blockIdFlag === 2 ? { validator: v, index, sig } : undefined;
  });
  const votes = signed.map((s) =>
    s === undefined
      ? 'nil-Vote'
      : voteString({
          type: PRECOMMIT,
          height: commit.height,
          round: commit.round,
          blockId: commit.blockId,
          timestamp: s.sig.timestamp,
          validatorAddress: s.validator.address,
          validatorIndex: s.index,
          signature: s.sig.signature,
          extension: new Uint8Array(0),
        }),
  );
  const voted = signed.reduce((sum, s) => sum + (s?.validator.votingPower ?? 0n), 0n);
  const total = totalVotingPower(set);
  const fraction = total === 0n ? 0 : Number(voted) / Number(total);
  return {
    votes,
    votes_bit_array: `${bitArray(signed.map((s) => s !== undefined))} ${voted}/${total} = ${fraction.toFixed(2)}`,
    peer_maj_23s: {},
  };
}

/** BitArray.String(): `BA{n:x_x}`. */
function bitArray(bits: boolean[]): string {
  return `BA{${bits.length}:${bits.map((b) => (b ? 'x' : '_')).join('')}}`;
}
