// An s3rver in a process of its own, so a benchmark's CPU figures do not count the server's work:
// prints its S3Config as one JSON line, and stops when its stdin closes.
import { startS3 } from '../test/support/s3.js';

const s3 = await startS3();
process.stdout.write(`${JSON.stringify(s3.config)}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void s3.stop().then(() => process.exit(0));
});
