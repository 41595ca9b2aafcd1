// The Node baseline for `scripts/bench-server`: Node's own `http` module answering /healthz
// with {"status":"ok"} as `sybil serve` does (keep-alive, JSON content type), one process.
// Usage: node scripts/bench/node_peer.js [PORT]; prints "listening on http://127.0.0.1:PORT".
"use strict";
const http = require("http");

const body = Buffer.from('{"status":"ok"}');
const server = http.createServer((request, response) => {
    if (request.url === "/healthz") {
        response.writeHead(200, { "Content-Type": "application/json", "Content-Length": body.length });
        response.end(body);
    } else {
        response.writeHead(404, { "Content-Length": 0 });
        response.end();
    }
});
server.keepAliveTimeout = 60000;
server.listen(Number(process.argv[2] || 0), "127.0.0.1", () => {
    console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
