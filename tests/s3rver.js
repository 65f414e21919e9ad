// Starts @20minutes/s3rver (an S3 server that checks SigV4 signatures) on 127.0.0.1 on a
// free port, with the given buckets, and writes the port into DIR/port once it listens.
// Usage: node --openssl-legacy-provider tests/s3rver.js DIR BUCKET...
// (its pagination tokens use DES, which OpenSSL 3 keeps in the legacy provider).
'use strict';
const fs = require('fs');
const path = require('path');
const S3rver = require('@20minutes/s3rver');

const [dir, ...buckets] = process.argv.slice(2);
if (!dir) {
  console.error('usage: s3rver.js DIR BUCKET...');
  process.exit(2);
}
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: path.join(dir, 'data'),
  configureBuckets: buckets.map((name) => ({ name, configs: [] })),
});
server.run().then(({ port }) => {
  fs.writeFileSync(path.join(dir, 'port.tmp'), String(port));
  fs.renameSync(path.join(dir, 'port.tmp'), path.join(dir, 'port'));
}, (err) => {
  console.error('s3rver:', err.message);
  process.exit(1);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close().finally(() => process.exit(0)));
