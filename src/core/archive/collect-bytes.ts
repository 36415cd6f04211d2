/** Every byte of `chunks`, joined. */
export async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    length += chunk.length;
  }
  const joined = new Uint8Array(length);
  let at = 0;
  for (const chunk of parts) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return joined;
}
