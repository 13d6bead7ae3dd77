/** A fuzzer input as one JSON-RPC param value: its JSON value when it parses, else the text as a string. */
export function paramValue(data: Buffer): unknown {
  const text = data.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
