// A fault-injecting proxy in front of an S3 server, for the retry tests: it answers the
// first N requests with 503 SlowDown (as S3 does under load) and forwards the rest to
// 127.0.0.1:UPSTREAM unchanged (the Host header too, so SigV4 signatures still hold).
// Writes its port into DIR/port and the count of requests it failed into DIR/failed.
// With ONLY=range, only ranged GETs (the training reads) count and fail; with ONLY=part,
// only multipart part uploads (to prove that a failed upload is aborted); with ONLY=data,
// only PUTs of dataset objects (keys under train/: datagen's, not the marker's).
// S3FAULT_DELAY_MS=D holds each ranged GET D ms before forwarding it: a store far away,
// whose first byte comes late (the latency-bound diagnosis).
// Usage: node tests/s3fault.js DIR UPSTREAM_PORT N [range|part|data]
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');

const [dir, upstream, n, only] = process.argv.slice(2);
const failFirst = Number(n);
const delayMs = Number(process.env.S3FAULT_DELAY_MS || 0);
let seen = 0;
let failed = 0;

const server = http.createServer((req, res) => {
  const counts = only === 'range' ? req.headers.range !== undefined
    : only === 'part' ? /[?&]partNumber=/.test(req.url)
    : only === 'data' ? req.method === 'PUT' && /\/train\//.test(req.url) : true;
  if (counts) seen++;
  if (counts && seen <= failFirst) {
    failed++;
    fs.writeFileSync(path.join(dir, 'failed'), String(failed));
    req.resume();
    req.on('end', () => {
      const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>' +
        '<Message>Please reduce your request rate.</Message></Error>';
      res.writeHead(503, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
    return;
  }
  if (delayMs > 0 && req.headers.range !== undefined) setTimeout(() => forward(req, res), delayMs);
  else forward(req, res);
});

function forward(req, res) {
  const up = http.request({ host: '127.0.0.1', port: Number(upstream), method: req.method, path: req.url,
    headers: req.headers }, (ures) => {
    res.writeHead(ures.statusCode, ures.headers);
    ures.pipe(res);
  });
  up.on('error', () => { res.writeHead(502); res.end(); });
  req.pipe(up);
}
server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(path.join(dir, 'port.tmp'), String(server.address().port));
  fs.renameSync(path.join(dir, 'port.tmp'), path.join(dir, 'port'));
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
