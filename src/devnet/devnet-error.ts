/**
 * A failure of a devnet operation that the caller should see as it is worded (a tx the leader did not
 * take, a tracer the devnet does not have); the embedded backends answer it as an application error.
 */
export class DevnetError extends Error {
  override readonly name = 'DevnetError';
}
