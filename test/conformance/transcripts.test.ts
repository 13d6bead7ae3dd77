/**
 * Wire transcripts: each file under test/conformance/<surface>/ is a sequence of `-->` requests and
 * the exact `<--` bytes expected back. A request line is `--> POST <body>`, `--> GET <path>` or
 * `--> WS <message>`; a reply line is `<-- <status> <body>` for HTTP and `<-- <message>` for WS.
 * `# flags: key=value …` on the first lines passes CLI flags to the gateway under test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { WsClient } from '../support/ws-client';

interface Step {
  line: number;
  kind: 'POST' | 'GET' | 'WS';
  request: string;
  status?: number;
  reply: string;
}

function parseTranscript(text: string): { flags: Record<string, string>; steps: Step[] } {
  const flags: Record<string, string> = {};
  const steps: Step[] = [];
  let pending: Omit<Step, 'reply'> | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trimEnd();
    const flagLine = /^# flags: (.*)$/.exec(line);
    if (flagLine) for (const kv of flagLine[1].split(/\s+/)) flags[kv.split('=')[0]] = kv.slice(kv.indexOf('=') + 1);
    if (line.startsWith('--> ')) {
      const [, kind, request] = /^--> (POST|GET|WS) (.*)$/.exec(line) ?? [];
      if (!kind) throw new Error(`line ${i + 1}: bad request line`);
      pending = { line: i + 1, kind: kind as Step['kind'], request };
    } else if (line.startsWith('<-- ')) {
      if (!pending) throw new Error(`line ${i + 1}: reply without request`);
      const body = line.slice(4);
      if (pending.kind === 'WS') steps.push({ ...pending, reply: body });
      else steps.push({ ...pending, status: Number(body.slice(0, 3)), reply: body.slice(4) });
      pending = undefined;
    }
  });
  return { flags, steps };
}

const root = __dirname;
const files = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(root, d.name)).filter((f) => f.endsWith('.txt')).map((f) => join(d.name, f)));

describe.each(files)('%s', (file) => {
  const { flags, steps } = parseTranscript(readFileSync(join(root, file), 'utf8'));
  let gw: TestGateway;
  let ws: WsClient;

  beforeAll(async () => {
    gw = await startTestGateway(flags);
    await waitForHeight(gw.url, 1);
    ws = await WsClient.open(gw.wsUrl);
  });
  afterAll(async () => {
    await ws?.close();
    await gw?.close();
  });

  it.each(steps.map((s) => [s.line, s] as const))('line %i', async (_line, step) => {
    if (step.kind === 'WS') {
      ws.socket.send(step.request);
      const reply = await new Promise<string>((resolve) => ws.socket.once('message', (d) => resolve(d.toString())));
      expect(reply).toBe(step.reply);
      return;
    }
    const res =
      step.kind === 'GET'
        ? await fetch(gw.url + step.request)
        : await fetch(gw.url + '/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: step.request });
    expect(`${res.status} ${await res.text()}`).toBe(`${step.status} ${step.reply}`);
  });
});
