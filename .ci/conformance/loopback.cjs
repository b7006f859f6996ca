// Preload (node --require ./loopback.cjs ...): keeps every TCP server of the conformance
// suite on 127.0.0.1. The suite's scenario servers call listen(0) with no host, which binds
// all interfaces; this project only ever listens on loopback.
//
// Hazard: a listen() without a host binds synchronously, and the suite reads
// server.address().port on the very next line. With a host, Node first runs dns.lookup(),
// which answers even an IP literal on the next tick, so address() would still be null.
// While our listen() runs, dns.lookup() therefore answers IP literals synchronously.
//
// Verification: every 'listening' event is checked; a server on anything but 127.0.0.1
// ends the process (exit 97). If LOOPBACK_LOG is set, one line per listening server is
// appended to it ("listening 127.0.0.1:PORT") so run.sh can check that the hook ran at all.
'use strict';

const dns = require('node:dns');
const fs = require('node:fs');
const net = require('node:net');

const HOST = '127.0.0.1';
const WILDCARDS = new Set(['', '0.0.0.0', '::', '0:0:0:0:0:0:0:0']);
const originalListen = net.Server.prototype.listen;
const originalLookup = dns.lookup;

function syncLiteralLookup(hostname, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = {};
  }
  const family = net.isIP(hostname);
  if (!family) return originalLookup.call(dns, hostname, options, callback);
  if (options && options.all) callback(null, [{ address: hostname, family }]);
  else callback(null, hostname, family);
  return {};
}

function isPort(value) {
  return typeof value === 'number' || (typeof value === 'string' && value !== '' && !isNaN(Number(value)));
}

// Rewrites the arguments of listen() so that a TCP listen without a host (or on a wildcard
// address) gets 127.0.0.1. Pipes, handles and file descriptors are left alone.
function withLoopbackHost(args) {
  if (args.length === 0 || typeof args[0] === 'function') return [0, HOST, ...args];
  const [first, second, ...rest] = args;
  if (isPort(first)) {
    if (typeof second === 'string' && !WILDCARDS.has(second)) return args;
    if (typeof second === 'string' || second === undefined || second === null) return [first, HOST, ...rest];
    return [first, HOST, second, ...rest];
  }
  if (first && typeof first === 'object' && !('_handle' in first) && !('fd' in first) && first.path === undefined) {
    if (first.host === undefined || WILDCARDS.has(first.host)) return [{ ...first, host: HOST }, ...args.slice(1)];
  }
  return args;
}

function checkListening() {
  const address = this.address();
  if (!address || typeof address !== 'object') return; // a pipe
  if (address.address !== HOST) {
    process.stderr.write(`loopback.cjs: a server listens on ${address.address}:${address.port}, not ${HOST}\n`);
    process.exit(97);
  }
  if (process.env.LOOPBACK_LOG) fs.appendFileSync(process.env.LOOPBACK_LOG, `listening ${address.address}:${address.port}\n`);
}

net.Server.prototype.listen = function listen(...args) {
  this.once('listening', checkListening);
  dns.lookup = syncLiteralLookup;
  try {
    return originalListen.apply(this, withLoopbackHost(args));
  } finally {
    dns.lookup = originalLookup;
  }
};
