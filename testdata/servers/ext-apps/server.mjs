// An MCP Apps server (io.modelcontextprotocol/ui, SEP-1865) built with the
// extension's own server helpers, @modelcontextprotocol/ext-apps 2.0.4
// (registerAppTool, registerAppResource, RESOURCE_MIME_TYPE), on the
// TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0). mcp-eval's tests
// run the apps/* checks against it as a correct real server.
//
// The helpers do not declare the extension; the server declares it under
// capabilities.extensions, as the SEP's capability negotiation says.
//
// Usage:
//   node server.mjs [--port N] [--host 127.0.0.1] [--stdio]
//   --bad-html   serves the view without its <!DOCTYPE html> (a fault
//                the apps/resource-content check exists for)
// Once the socket listens, the server prints its endpoint URL on stdout:
//   http://127.0.0.1:PORT/mcp
// SIGTERM or SIGINT stops it.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

import { toNodeHandler } from '@modelcontextprotocol/node';
import {
    createMcpHandler,
    fromJsonSchema,
    hostHeaderValidationResponse,
    localhostAllowedHostnames,
    localhostAllowedOrigins,
    McpServer,
    originValidationResponse
} from '@modelcontextprotocol/server';
import { EXTENSION_ID, RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';

const { values: opts } = parseArgs({
    options: {
        port: { type: 'string', default: process.env.PORT ?? '0' },
        host: { type: 'string', default: '127.0.0.1' },
        stdio: { type: 'boolean', default: false },
        'bad-html': { type: 'boolean', default: false }
    }
});
const port = Number.parseInt(opts.port, 10);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`server.mjs: bad --port ${JSON.stringify(opts.port)}`);
    process.exit(2);
}

const viewURI = 'ui://clock/view.html';
const viewHTML = (opts['bad-html'] ? '' : '<!DOCTYPE html>\n') +
    '<html lang="en"><head><meta charset="utf-8"><title>Clock</title></head>\n' +
    '<body><p id="time">…</p><script>/* the view reads ui/notifications/tool-result */</script></body></html>\n';

function buildServer() {
    const server = new McpServer(
        { name: 'mcp-eval-ext-apps', version: '1.0.0' },
        {
            capabilities: { extensions: { [EXTENSION_ID]: {} } },
            instructions: 'Test server for mcp-eval: an MCP App (a clock view) with a text fallback.',
            cacheHints: {
                'server/discover': { ttlMs: 60000, cacheScope: 'public' },
                'tools/list': { ttlMs: 60000, cacheScope: 'public' },
                'prompts/list': { ttlMs: 60000, cacheScope: 'public' },
                'resources/list': { ttlMs: 60000, cacheScope: 'public' },
                'resources/templates/list': { ttlMs: 60000, cacheScope: 'public' },
                'resources/read': { ttlMs: 0, cacheScope: 'private' }
            }
        }
    );

    registerAppTool(
        server,
        'show_time',
        {
            title: 'Show time',
            description: 'Show the server time in an interactive clock view, with the same time as text for text-only clients.',
            inputSchema: fromJsonSchema({ type: 'object', properties: {}, additionalProperties: false }),
            annotations: { readOnlyHint: true, openWorldHint: false },
            _meta: { ui: { resourceUri: viewURI, visibility: ['model', 'app'] } }
        },
        async () => ({ content: [{ type: 'text', text: `The server time is ${new Date().toISOString()}.` }] })
    );

    registerAppResource(server, 'Clock view', viewURI, { description: 'The clock view of show_time.' }, async () => ({
        contents: [{ uri: viewURI, mimeType: RESOURCE_MIME_TYPE, text: viewHTML }]
    }));

    return server;
}

if (opts.stdio) {
    const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
    serveStdio(() => buildServer());
} else {
    serveHTTP();
}

function serveHTTP() {
    const handler = createMcpHandler(() => buildServer());
    const nodeHandler = toNodeHandler({
        fetch: async request =>
            hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
            originValidationResponse(request, localhostAllowedOrigins()) ??
            handler.fetch(request)
    });
    const httpServer = createServer((req, res) => {
        if ((req.url ?? '/').split('?')[0] !== '/mcp') {
            res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
            return;
        }
        nodeHandler(req, res).catch(err => {
            console.error('server.mjs: handler error:', err);
            if (!res.headersSent) res.writeHead(500);
            res.end();
        });
    });
    httpServer.listen(port, opts.host, () => {
        const addr = httpServer.address();
        const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
        process.stdout.write(`http://${host}:${addr.port}/mcp\n`);
    });
    let stopping = false;
    const stop = () => {
        if (stopping) return;
        stopping = true;
        httpServer.closeAllConnections?.();
        httpServer.close(() => process.exit(0));
        handler.close().catch(() => {});
        setTimeout(() => process.exit(0), 2000).unref();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
}
