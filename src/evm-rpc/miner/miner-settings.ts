import { Injectable } from '@nestjs/common';

/**
 * What miner_setEtherbase and miner_setGasPrice change: the coinbase eth_coinbase reports, and the
 * gas price floor of transactions admitted through this gateway (which eth_gasPrice never suggests
 * going under).
 */
@Injectable()
export class MinerSettings {
  etherbase: string | undefined;
  minGasPrice = 0n;
}
