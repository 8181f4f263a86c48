// An MCP server on the TypeScript SDK v2 protected the way
// @modelcontextprotocol/express 2.0.2 documents it, for mcp-eval's auth
// corpus: requireBearerAuth (with expectedResource) in front of the /mcp
// route, and mcpAuthMetadataRouter serving the RFC 9728 protected-resource
// metadata at the path-inserted well-known URI. The SDK supplies no token
// verifier; this one checks a JWT access token against the authorization
// server's JWKS with jose (signature, iss, exp) and fills AuthInfo.resource
// from the token's aud, which requireBearerAuth compares with
// expectedResource.
//
//   node server.mjs --port N --issuer http://127.0.0.1:AS_PORT [--scope 'mcp:tools'] [--no-audience] [--no-signature]
//
// The endpoint is http://127.0.0.1:PORT/mcp, also the resource identifier.
// --no-audience leaves expectedResource unset (the negative corpus: tokens
// issued for another resource are accepted); --no-signature reads the
// claims with jose's decodeJwt instead of jwtVerify (iss, aud, exp and scope
// still checked: a token anyone can make is accepted). Once it listens it prints its
// endpoint on stdout. SIGTERM or SIGINT stops it.
import { parseArgs } from 'node:util';

import { createMcpExpressApp, mcpAuthMetadataRouter, requireBearerAuth, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/express';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, fromJsonSchema, McpServer, OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';

const { values: opts } = parseArgs({
    options: {
        port: { type: 'string', default: '0' },
        issuer: { type: 'string' },
        scope: { type: 'string', default: 'mcp:tools' },
        'no-audience': { type: 'boolean', default: false },
        'no-signature': { type: 'boolean', default: false }
    }
});
const port = Number.parseInt(opts.port, 10);
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !opts.issuer) {
    console.error('server.mjs: --port N (1-65535) and --issuer URL are required');
    process.exit(2);
}
const issuer = opts.issuer;
const resourceUrl = new URL(`http://127.0.0.1:${port}/mcp`);
const scopes = opts.scope.split(' ').filter(Boolean);

// The AS's metadata: RFC 8414 first, then OpenID discovery (Hydra serves
// only the latter). mcpAuthMetadataRouter passes it through verbatim.
async function asMetadata() {
    for (const wk of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        const res = await fetch(issuer.replace(/\/$/, '') + wk, { signal: AbortSignal.timeout(10000) }).catch(() => undefined);
        if (res?.ok) {
            const md = await res.json();
            if (md.issuer === issuer) return md;
        }
    }
    throw new Error(`no authorization server metadata for ${issuer}`);
}
const oauthMetadata = await asMetadata();
const jwks = createRemoteJWKSet(new URL(oauthMetadata.jwks_uri));

const verifier = {
    async verifyAccessToken(token) {
        let payload;
        try {
            if (opts['no-signature']) {
                payload = decodeJwt(token);
                if (payload.iss !== issuer) throw Object.assign(new Error('issuer'), { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
            } else {
                ({ payload } = await jwtVerify(token, jwks, { issuer }));
            }
        } catch (err) {
            throw new OAuthError(OAuthErrorCode.InvalidToken, `the access token is not valid (${err.code ?? 'invalid'})`);
        }
        const aud = Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [];
        const mine = aud.find((a) => a === resourceUrl.href);
        const scope = typeof payload.scope === 'string' ? payload.scope.split(' ') : Array.isArray(payload.scp) ? payload.scp : [];
        return {
            token,
            clientId: String(payload.client_id ?? payload.sub ?? ''),
            scopes: scope,
            expiresAt: payload.exp,
            resource: mine ? new URL(mine) : aud[0] ? new URL(aud[0]) : undefined
        };
    }
};

function buildServer() {
    const server = new McpServer({ name: 'mcp-eval-ts-v2-auth', version: '1.0.0' });
    server.registerTool(
        'whoami',
        {
            title: 'Who am I',
            description: 'Say which OAuth client the request\'s access token was issued to, and its scopes.',
            inputSchema: fromJsonSchema({ type: 'object', properties: {} }),
            annotations: { readOnlyHint: true }
        },
        async (_args, ctx) => {
            const auth = ctx?.http?.authInfo;
            return { content: [{ type: 'text', text: `${auth?.clientId ?? 'unknown'}: ${(auth?.scopes ?? []).join(' ')}` }] };
        }
    );
    return server;
}

const handler = createMcpHandler(() => buildServer());
const nodeHandler = toNodeHandler(handler);

const app = createMcpExpressApp({ host: '127.0.0.1' });
app.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: resourceUrl, scopesSupported: scopes, resourceName: 'ts-v2-auth' }));
const bearer = requireBearerAuth({
    verifier,
    requiredScopes: scopes,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resourceUrl),
    ...(opts['no-audience'] ? {} : { expectedResource: resourceUrl })
});
app.all('/mcp', bearer, (req, res) => nodeHandler(req, res, req.body));

const httpServer = app.listen(port, '127.0.0.1', () => {
    process.stdout.write(resourceUrl.href + '\n');
});
function stop() {
    httpServer.closeAllConnections?.();
    httpServer.close(() => process.exit(0));
    handler.close().catch(() => {});
    setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
