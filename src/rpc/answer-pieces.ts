/**
 * An answer in pieces, written one after the other: the engine's answer over HTTP to a call (alone or in
 * a batch) whose result is an upstream's large answer passed on unread (its bytes as they were read,
 * between the envelope's head and its closing brace), so that it is never joined into one buffer nor
 * decoded.
 */
export type AnswerPieces = readonly (string | Buffer)[];

/** The size of an answer in bytes. */
export function answerBytes(body: string | AnswerPieces): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  let size = 0;
  for (const piece of body) size += Buffer.byteLength(piece);
  return size;
}

/** A batch's answer from its members' answers: one text, or pieces when a member's answer is in pieces. */
export function batchAnswer(answers: readonly (string | AnswerPieces)[]): string | AnswerPieces {
  if (answers.every((a) => typeof a === 'string')) return `[${answers.join(',')}]`;
  const pieces: (string | Buffer)[] = ['['];
  for (const answer of answers) {
    if (pieces.length > 1) pieces.push(',');
    if (typeof answer === 'string') pieces.push(answer);
    else pieces.push(...answer);
  }
  pieces.push(']');
  return pieces;
}
