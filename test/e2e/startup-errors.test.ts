/** A gateway that cannot start says why in one line on stderr and exits 1, as a node does. */
import { startGatewayProcess } from '../support/gateway-process';

const oneLine = (text: string) => new RegExp(`^the gateway exited with 1: ${text}[^\\n]*\\n$`);

it('an unreachable leader: one line naming the key, no stack trace', async () => {
  await expect(startGatewayProcess({ 'devnet.follow': 'http://127.0.0.1:1' })).rejects.toThrow(
    oneLine(`\\[devnet\\] follow = "http://127\\.0\\.0\\.1:1": cannot read the leader's genesis`),
  );
});

it('a bad value: one line naming the key, the value and what was expected', async () => {
  await expect(startGatewayProcess({ 'devnet.block_time': 'soon' })).rejects.toThrow(oneLine('.*block_time.*soon'));
});
