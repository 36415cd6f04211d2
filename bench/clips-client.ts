// bench/clips' client, in a process of its own so that reading the clips costs the bench's (the
// app's) CPU nothing: for each line `URL [FILE]` on stdin, asks URL and reads the answer to its end
// (into FILE when given), then prints one JSON line: the status, the headers, and the seconds from
// the request to the headers, to the first body byte and to the end, and the body's bytes.
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import { createInterface } from 'node:readline';

export interface ClientAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  headersAt: number;
  firstByteAt: number;
  endAt: number;
  bytes: number;
}

function ask(url: string, saveTo?: string): Promise<ClientAnswer> {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const since = () => (performance.now() - began) / 1000;
    const request = http.get(url, { agent: false }, (response) => {
      const headersAt = since();
      let firstByteAt = 0;
      let bytes = 0;
      const file = saveTo === undefined ? null : createWriteStream(saveTo);
      response.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByteAt = since();
        bytes += chunk.length;
        file?.write(chunk);
      });
      response.on('error', reject);
      response.on('end', () => {
        const endAt = since();
        const done = () => resolve({ status: response.statusCode ?? 0, headers: response.headers, headersAt, firstByteAt, endAt, bytes });
        if (file === null) done();
        else file.end(done);
      });
    });
    request.on('error', reject);
  });
}

for await (const line of createInterface({ input: process.stdin })) {
  const [url, saveTo] = line.trim().split(' ');
  if (url === undefined || url === '') continue;
  process.stdout.write(`${JSON.stringify(await ask(url, saveTo))}\n`);
}
