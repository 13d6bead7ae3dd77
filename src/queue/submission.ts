/**
 * What the broadcasting methods of both interfaces share: a tx's place in the queue (its sender and nonce
 * when it is a signed Ethereum tx), and the errors a caller gets when the queue cannot take a tx, when
 * its delivery gave up, or when the node's answer is not known in time.
 */
import { Transaction } from 'ethers';
import { ApplicationError } from '../rpc/errors';
import { QueueUnavailableError, type BroadcastJob, type BroadcastQueue, type NodeError, type SubmitOptions, type Submitted } from './broadcast-queue';

/**
 * Queues `job` (and waits for its outcome with `options.waitMs`); a store that cannot take it is the
 * caller's clear error, and nothing was queued.
 */
export async function submitOrRefuse(queue: BroadcastQueue, job: BroadcastJob, options?: SubmitOptions): Promise<Submitted> {
  try {
    return await queue.submit(job, options);
  } catch (err) {
    if (err instanceof QueueUnavailableError) {
      throw new ApplicationError(`broadcast queue unavailable: ${err.message}; the transaction was not accepted, send it again later`);
    }
    throw err;
  }
}

/** The node's error answer, for the caller, as the node gave it. */
export function nodeAnswer(error: NodeError): ApplicationError {
  return new ApplicationError(error.message, error.code, error.data);
}

/** A caller waited `[queue] check_timeout` and the node has not answered the tx: it stays queued. */
export function stillQueued(hash: string): ApplicationError {
  return new ApplicationError(
    `transaction ${hash} is queued but the node has not checked it yet (the backend may be unavailable); the gateway keeps delivering it, and sending it again is safe`,
  );
}

/** Every attempt found the backend unavailable: the job is in the failed set. */
export function notDelivered(hash: string, reason: string): ApplicationError {
  return new ApplicationError(`transaction ${hash} was not delivered: ${reason}`);
}

/**
 * The sender and nonce of a signed Ethereum tx (raw bytes), so that one sender's txs reach the node in
 * nonce order; nothing for other bytes (a Cosmos tx, a kvstore tx).
 */
export function senderNonce(raw: Uint8Array): { sender: string; nonce: number } | undefined {
  const first = raw[0];
  // A typed tx envelope of a known type (EIP-2718: 0x01…0x04) or a legacy RLP list (0xc0…).
  if (first === undefined || first === 0 || (first > 0x04 && first < 0xc0)) return undefined;
  try {
    const tx = Transaction.from(`0x${Buffer.from(raw).toString('hex')}`);
    return tx.from ? { sender: tx.from.toLowerCase(), nonce: tx.nonce } : undefined;
  } catch {
    return undefined;
  }
}
