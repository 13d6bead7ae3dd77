/** The ABCI routes: abci_info and abci_query go straight to the application. */
import type { JsonObject } from '../../../rpc/json';
import type { Application } from '../../../devnet/app/application';
import { infoJson, queryResultJson } from '../wire/abci-json';

export class AbciRpc {
  constructor(private readonly app: Application) {}

  async abciInfo(): Promise<JsonObject> {
    return { response: infoJson(await this.app.info()) };
  }

  /** The kvstore answers without proof ops, even when asked to prove. */
  async abciQuery(path: string, data: Uint8Array, height: bigint, prove: boolean): Promise<JsonObject> {
    return { response: queryResultJson(await this.app.query({ path, data, height, prove })) };
  }
}
