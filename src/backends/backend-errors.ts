import { ApplicationError } from '../rpc/errors';

/**
 * The backend could not be asked: no upstream is healthy or configured, the connection failed, or no
 * answer came in time. The node gave no verdict on the call, so it may be made again later (the
 * broadcast queue retries a delivery that failed this way). Clients see it as any ApplicationError.
 */
export class BackendUnavailableError extends ApplicationError {}
