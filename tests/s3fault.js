// A fault-injecting proxy in front of an S3 server, for the retry and fault tests: it
// answers the first N requests that match ONLY with FAULT and forwards the rest to
// 127.0.0.1:UPSTREAM unchanged (the Host header too, so SigV4 signatures still hold).
// Writes its port into DIR/port and the count of requests it faulted into DIR/failed.
//
// ONLY (which requests count; default all):
//   range   ranged GETs (the training reads)
//   part    multipart part uploads (to prove that a failed upload is aborted)
//   data    PUTs of dataset objects (keys under train/: datagen's, not the marker's)
//   get     GETs of dataset objects (keys under train/)
//   delete  DELETEs (checkpoint cleanup, markers, manifests)
//   multidelete  multi-object deletes, POST ?delete (the dataset's cleanup, keep_files false)
//   all     every request
// FAULT (what a counted request gets; default 503):
//   503        503 SlowDown, as S3 answers under load
//   500        500 InternalError
//   trickle:R  forwarded, its request body and its answer at R bytes per second
//   stall      never answered (the connection stays open)
//   reset      the connection reset (TCP RST) before any answer
//   short      forwarded, the answer's body cut at half its Content-Length, then the
//              connection closed
// S3FAULT_DELAY_MS=D holds each ranged GET it forwards D ms: a store far away, whose first
// byte comes late (the latency-bound diagnosis).
// Usage: node tests/s3fault.js DIR UPSTREAM_PORT N [ONLY] [FAULT]
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');

const [dir, upstream, n, onlyArg, faultArg] = process.argv.slice(2);
const only = onlyArg || 'all';
const fault = faultArg || '503';
const failFirst = Number(n);
const delayMs = Number(process.env.S3FAULT_DELAY_MS || 0);
let seen = 0;
let failed = 0;

function matches(req) {
  switch (only) {
    case 'range': return req.headers.range !== undefined;
    case 'part': return /[?&]partNumber=/.test(req.url);
    case 'data': return req.method === 'PUT' && /\/train\//.test(req.url);
    case 'get': return req.method === 'GET' && /\/train\//.test(req.url);
    case 'delete': return req.method === 'DELETE';
    case 'multidelete': return req.method === 'POST' && /[?&]delete(=|&|$)/.test(req.url);
    case 'all': return true;
    default: throw new Error('unknown ONLY ' + only);
  }
}

function errorAnswer(res, status, code, message) {
  const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>' + code + '</Code>' +
    '<Message>' + message + '</Message></Error>';
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

// A readable piped to a writable at rate bytes per second, in slices every 100 ms.
function trickle(from, to, rate, end) {
  const slice = Math.max(1, Math.floor(rate / 10));
  let queue = Buffer.alloc(0);
  let ended = false;
  const timer = setInterval(() => {
    if (queue.length) {
      const now = queue.subarray(0, slice);
      queue = queue.subarray(now.length);
      to.write(now);
    }
    if (ended && !queue.length) {
      clearInterval(timer);
      end();
    }
  }, 100);
  from.on('data', (d) => { queue = Buffer.concat([queue, d]); });
  from.on('end', () => { ended = true; });
  from.on('error', () => clearInterval(timer));
  to.on('close', () => clearInterval(timer));
}

function forward(req, res, how) {
  const up = http.request({ host: '127.0.0.1', port: Number(upstream), method: req.method, path: req.url,
    headers: req.headers }, (ures) => {
    if (how === 'short') {
      const len = Number(ures.headers['content-length'] || 0);
      const keep = Math.floor(len / 2);
      let sent = 0;
      res.writeHead(ures.statusCode, ures.headers);
      res.flushHeaders();
      ures.on('data', (d) => {
        if (sent >= keep) return;
        const part = d.subarray(0, keep - sent);
        sent += part.length;
        // Closed once the half is on the wire: the client sees a body cut short.
        res.write(part, () => { if (sent >= keep) res.socket.destroy(); });
      });
      ures.on('end', () => { if (sent < keep || keep === 0) setTimeout(() => res.socket.destroy(), 50); });
      return;
    }
    res.writeHead(ures.statusCode, ures.headers);
    if (how && how.rate) trickle(ures, res, how.rate, () => res.end());
    else ures.pipe(res);
  });
  up.on('error', () => { if (!res.headersSent) { res.writeHead(502); res.end(); } });
  res.on('close', () => up.destroy());
  if (how && how.rate) trickle(req, up, how.rate, () => up.end());
  else req.pipe(up);
}

const server = http.createServer((req, res) => {
  const counts = matches(req);
  if (counts) seen++;
  if (!(counts && seen <= failFirst)) {
    if (delayMs > 0 && req.headers.range !== undefined) setTimeout(() => forward(req, res, null), delayMs);
    else forward(req, res, null);
    return;
  }
  failed++;
  fs.writeFileSync(path.join(dir, 'failed'), String(failed));
  if (fault === '503' || fault === '500') {
    req.resume();
    req.on('end', () => fault === '503'
      ? errorAnswer(res, 503, 'SlowDown', 'Please reduce your request rate.')
      : errorAnswer(res, 500, 'InternalError', 'We encountered an internal error. Please try again.'));
  } else if (fault === 'stall') {
    req.resume(); // read what comes, answer nothing
  } else if (fault === 'reset') {
    if (req.socket.resetAndDestroy) req.socket.resetAndDestroy();
    else req.socket.destroy();
  } else if (fault === 'short') {
    forward(req, res, 'short');
  } else if (fault.startsWith('trickle:')) {
    forward(req, res, { rate: Number(fault.slice(8)) });
  } else {
    throw new Error('unknown FAULT ' + fault);
  }
});
server.keepAliveTimeout = 30000;
server.requestTimeout = 0; // a trickled or stalled request is the point
server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(path.join(dir, 'port.tmp'), String(server.address().port));
  fs.renameSync(path.join(dir, 'port.tmp'), path.join(dir, 'port'));
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
