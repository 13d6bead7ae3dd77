import { defineMethod, param, returns } from '../../rpc/method';
import * as c from '../codec/codecs';

/**
 * The node's eth_sendRawTransaction: the tx handed to the backend (the broadcast queue's delivery, and
 * bytes that are no signed tx, for the node to refuse in its own words). Clients' calls go through the
 * queue: the served method is EthAccountMethods'.
 */
export const eth_sendRawTransaction = defineMethod({ group: 'eth', name: 'eth_sendRawTransaction', params: [param('data', c.data)], result: returns<string>() });
