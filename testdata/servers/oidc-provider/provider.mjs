// An authorization server for mcp-eval's tests: oidc-provider (the certified
// OpenID provider) with the client credentials grant and RFC 8707 resource
// indicators. A token request names its resource; the access token is a JWT
// whose aud is that resource. A resource not listed with --resource is
// refused with invalid_target; a --resource ending in * admits every
// resource that starts with what comes before it.
//
//   node provider.mjs --port N --client ID:SECRET --resource URI [--resource URI…]
//                     [--scope 'mcp:tools mcp:admin'] [--ttl SECONDS]
//
// Plain HTTP on 127.0.0.1 (the issuer is http://127.0.0.1:PORT). Once it
// listens it prints its issuer on stdout. SIGTERM or SIGINT stops it.
import { generateKeyPairSync } from 'node:crypto';
import { parseArgs } from 'node:util';

import Provider, { errors } from 'oidc-provider';

const { values: opts } = parseArgs({
    options: {
        port: { type: 'string', default: '0' },
        client: { type: 'string', multiple: true, default: [] },
        resource: { type: 'string', multiple: true, default: [] },
        scope: { type: 'string', default: 'mcp:tools mcp:admin' },
        ttl: { type: 'string', default: '3600' }
    }
});
const port = Number.parseInt(opts.port, 10);
const ttl = Number.parseInt(opts.ttl, 10);
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !Number.isInteger(ttl) || ttl <= 0) {
    console.error(`provider.mjs: bad --port ${JSON.stringify(opts.port)} or --ttl ${JSON.stringify(opts.ttl)}`);
    process.exit(2);
}
const clients = opts.client.map((c) => {
    const i = c.indexOf(':');
    if (i <= 0) {
        console.error(`provider.mjs: --client wants ID:SECRET, not ${JSON.stringify(c)}`);
        process.exit(2);
    }
    return {
        client_id: c.slice(0, i),
        client_secret: c.slice(i + 1),
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: opts.scope
    };
});
const known = (r) => opts.resource.some((p) => (p.endsWith('*') ? r.startsWith(p.slice(0, -1)) : r === p));

// One signing key per process; the JWKS is public at jwks_uri.
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'mcp-eval-test', use: 'sig', alg: 'RS256' };

const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
    clients,
    jwks: { keys: [jwk] },
    scopes: opts.scope.split(' '),
    features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        resourceIndicators: {
            enabled: true,
            // A client_credentials request without resource gets none.
            defaultResource: () => undefined,
            useGrantedResource: () => true,
            getResourceServerInfo(ctx, resourceIndicator) {
                if (!known(resourceIndicator)) {
                    throw new errors.InvalidTarget(`unknown resource ${resourceIndicator}`);
                }
                return {
                    scope: opts.scope,
                    audience: resourceIndicator,
                    accessTokenTTL: ttl,
                    accessTokenFormat: 'jwt',
                    jwt: { sign: { alg: 'RS256' } }
                };
            }
        }
    }
});
provider.proxy = false;

const server = provider.listen(port, '127.0.0.1', () => {
    process.stdout.write(issuer + '\n');
});
for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => server.close(() => process.exit(0)));
}
