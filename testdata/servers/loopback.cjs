// Preload (node --require) that makes a server which listens without a host
// (e.g. express's app.listen(PORT), as in server-everything) bind to
// 127.0.0.1 instead of every interface. Tests and benchmarks only.
'use strict';
const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
    const a0 = args[0];
    const isPort = typeof a0 === 'number' || (typeof a0 === 'string' && /^\d+$/.test(a0));
    if (isPort && typeof args[1] !== 'string') {
        args.splice(1, 0, '127.0.0.1');
    } else if (a0 && typeof a0 === 'object' && !Array.isArray(a0) && a0.path === undefined && a0.host === undefined && a0.fd === undefined && a0.handle === undefined && a0._handle === undefined) {
        args[0] = { ...a0, host: '127.0.0.1' };
    }
    return listen.apply(this, args);
};
