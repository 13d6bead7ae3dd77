import { answeredIdOf, errorAnswer, type Message } from './envelope';
import type { RpcError } from './errors';

/**
 * One member's answer (in pieces only where asked for, see RpcEngine.answer): its text, the text's size in
 * bytes, and its result's size (what batch-response-max-size counts).
 */
export type Answer<Text = string> = { readonly text: Text; readonly bytes: number; readonly resultBytes: number; readonly immutable: boolean; readonly retryAfterMs?: number };

/** An error's answer. */
export function errorOf(idText: string | undefined, error: RpcError, retryAfterMs?: number): Answer {
  const text = errorAnswer(idText, error);
  return { text, bytes: Buffer.byteLength(text), resultBytes: 0, immutable: false, retryAfterMs };
}

/** The answers of the members not run: every one that expects an answer gets the error. */
export function refuseRest(messages: readonly Message[], error: RpcError): Answer[] {
  const answers: Answer[] = [];
  for (const m of messages) {
    const idText = answeredIdOf(m);
    if (idText !== undefined) answers.push(errorOf(idText, error));
  }
  return answers;
}
