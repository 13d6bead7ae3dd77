/**
 * Wire transcripts, in the manner of go-ethereum's rpc/testdata: each file under
 * test/conformance/<interface>/ is a sequence of requests and the bytes expected back, run in order
 * against a real gateway (ephemeral ports) started for that file, once in each mode: over its embedded
 * devnet, and in upstream mode (`[backend] kind = "upstream"`) in front of an embedded-devnet gateway
 * started with the same flags, which then is its node-RPC and EVM upstream. Both must answer the same
 * bytes. The folder names the interface: `node-rpc/` (HTTP on `/` and `/<method>`, WebSocket on
 * `/websocket`) or `evm-rpc/` (the EVM HTTP listener, and the EVM WebSocket listener on `/`).
 *
 * Lines
 *   # …                        a comment; `# flags: key=value …` passes CLI flags (dotted names) to the
 *                              gateway (in upstream mode, to both gateways)
 *   # modes: embedded          runs the file in the modes named only (`embedded`, `upstream`); for lines
 *                              that depend on the devnet itself (dev accounts, mining, node details), with
 *                              the reason in a comment next to it. Without it a file runs in both modes
 *   --> POST <body>            JSON-RPC over HTTP to `/`; `--> POST` alone sends an empty body
 *   --> POST /path <body>      the same to another path (a body that starts with `/` needs `--> POST / /…`)
 *   --> GET /path              any HTTP method (GET PUT DELETE PATCH HEAD OPTIONS), to the HTTP listener
 *   --> GET@ws /path           plain HTTP to the WebSocket listener (EVM: its own port)
 *   --> Name: value            a request header for the next HTTP or OPEN line; `--> Name:` with no value
 *                              removes a default (POST sends `Content-Type: application/json` unless told)
 *   --> WS <message>           a text frame on the current WebSocket, opened first if there is none
 *   --> OPEN [/path]           a new WebSocket (default path of the interface), replacing the current one
 *   <-- <status> [<body>]      the exact HTTP answer; nothing after the status = an empty body
 *   <-- Name: value            after a status line: that response header, exactly (`<-- Name:` = absent)
 *   <-- <message>              after `--> WS`: the next message, exactly; one line per message expected
 *                              (a reply, then e.g. subscription events). A WS request with no reply line
 *                              expects nothing within 300 ms
 *   <-- close <code>           after `--> WS`: the server closes the connection with that code
 *   <-- 101                    after `--> OPEN`: the upgrade succeeded (otherwise the refusal's status and body)
 *   <~ …                       like `<--`, but the text is a pattern (below)
 *
 * Texts are taken literally after the single space that follows the keyword, leading spaces included.
 * A text that ends in the two characters `\n` ends in a newline byte (go-ethereum and Go's http.Error
 * end their bodies with one).
 *
 * In requests (bodies, paths, WS messages):
 *   {{name}}       a value captured earlier (inside a JSON string, a captured string gives its characters)
 *   {{TEXT*N}}     TEXT repeated N times, e.g. {{x*5000}}
 *   {{0xHH…}}      raw bytes, e.g. {{0xff}} for a body that is not valid UTF-8
 *
 * In `<~` patterns, everything is literal except:
 *   {{any}}        one JSON value (`"0x1a"`, `{…}`, `12`); inside a JSON string, any run of its characters
 *   {{...}}        any text at all (for non-JSON bodies such as an HTML page)
 *   {{name}}       as {{any}}, and captures the value for later requests and patterns; once captured,
 *                  {{name}} in a pattern must match that same value
 *
 * The transcripts describe what the gateway answers today, byte for byte: they are the regression net of
 * the request path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BACKENDS } from '../support/backends';
import type { TestGateway } from '../support/gateway';
import { parseTranscript } from './transcript-format';
import { TranscriptRun, SURFACES, startSurface, type Comparison } from './transcript-run';

const root = __dirname;
const files = Object.keys(SURFACES).flatMap((surface) =>
  readdirSync(join(root, surface))
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => `${surface}/${f}`),
);

/** One line per comparison, expected then actual, so that a failure shows both side by side. */
const report = (results: Comparison[]) => results.map((r) => `line ${r.line}: ${r.expected}`);
const actual = (results: Comparison[]) => results.map((r) => (r.ok ? `line ${r.line}: ${r.expected}` : `line ${r.line}: ${r.actual}`));

const transcripts = files.map((file) => ({ file, ...parseTranscript(readFileSync(join(root, file), 'utf8')) }));
const runs = BACKENDS.flatMap((mode) => transcripts.filter((t) => t.modes.includes(mode)).map((t) => [mode, t.file, t] as const));

describe.each(runs)('%s: %s', (mode, file, { flags, steps }) => {
  const [surface] = file.split('/');
  let gw: TestGateway | undefined;
  let run: TranscriptRun;

  beforeAll(async () => {
    const started = await startSurface(surface, flags, mode);
    gw = started.gw;
    run = new TranscriptRun(started.endpoints);
  }, 60_000);

  afterAll(async () => {
    await run?.close();
    await gw?.close();
  });

  it.each(steps.map((step) => [step.line, step] as const))('line %i', async (_line, step) => {
    const results = await run.run(step);
    expect(actual(results)).toEqual(report(results));
  });
});
