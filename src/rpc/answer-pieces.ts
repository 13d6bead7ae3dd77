/**
 * An answer in pieces, written one after the other: the engine's answer to a single HTTP call whose
 * result is an upstream's large answer passed on unread (its bytes as they were read, between the
 * envelope's head and its closing brace), so that it is never joined into one buffer nor decoded.
 */
export type AnswerPieces = readonly (string | Buffer)[];

/** The size of an answer in bytes. */
export function answerBytes(body: string | AnswerPieces): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  let size = 0;
  for (const piece of body) size += Buffer.byteLength(piece);
  return size;
}
