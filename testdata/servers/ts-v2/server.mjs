// A small MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0),
// used by mcp-eval's tests as a real 2026-07-28 target.
//
// It serves both protocol eras from one endpoint through createMcpHandler:
// 2026-07-28 requests (per-request _meta envelope, no initialize) and, by the
// SDK's default, 2025-era requests statelessly.
//
// Usage:
//   node server.mjs [--port N] [--host 127.0.0.1] [--legacy stateless|reject] [--no-guards]
//   node server.mjs --stdio      (serveStdio from @modelcontextprotocol/server/stdio)
// --no-guards drops the Host and Origin validation in front of the handler
// (what createMcpHandler does alone, as documented: it validates neither).
// The port also comes from $PORT; 0 (the default) picks a free one. Once the
// socket listens, the server prints one line to stdout, its endpoint URL:
//   http://127.0.0.1:PORT/mcp
// and then logs nothing else there. SIGTERM or SIGINT stops it.
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
    originValidationResponse,
    ResourceNotFoundError,
    ResourceTemplate
} from '@modelcontextprotocol/server';

const { values: opts } = parseArgs({
    options: {
        port: { type: 'string', default: process.env.PORT ?? '0' },
        host: { type: 'string', default: '127.0.0.1' },
        legacy: { type: 'string', default: 'stateless' },
        'no-guards': { type: 'boolean', default: false },
        stdio: { type: 'boolean', default: false }
    }
});
const port = Number.parseInt(opts.port, 10);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`server.mjs: bad --port ${JSON.stringify(opts.port)}`);
    process.exit(2);
}
if (opts.legacy !== 'stateless' && opts.legacy !== 'reject') {
    console.error(`server.mjs: --legacy must be stateless or reject, not ${JSON.stringify(opts.legacy)}`);
    process.exit(2);
}

// Notes live for the life of the process so that write_note is observable
// through the note://{id} template across (stateless) requests.
const notes = new Map([['1', 'The first note.']]);
let nextNote = 2;

function buildServer() {
    const server = new McpServer(
        { name: 'mcp-eval-ts-v2', version: '1.0.0' },
        {
            instructions: 'Test server for mcp-eval. Tools: echo, add, write_note.',
            cacheHints: {
                'server/discover': { ttlMs: 60000, cacheScope: 'public' },
                'tools/list': { ttlMs: 60000, cacheScope: 'public' },
                'prompts/list': { ttlMs: 60000, cacheScope: 'public' },
                'resources/list': { ttlMs: 5000, cacheScope: 'public' },
                'resources/templates/list': { ttlMs: 60000, cacheScope: 'public' },
                'resources/read': { ttlMs: 0, cacheScope: 'private' }
            }
        }
    );

    server.registerTool(
        'echo',
        {
            title: 'Echo',
            description: 'Return the given text unchanged. Use it to test that tool calls reach the server.',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: {
                    text: { type: 'string', description: 'The text to send back.' }
                },
                required: ['text'],
                additionalProperties: false
            }),
            annotations: { readOnlyHint: true, openWorldHint: false }
        },
        async ({ text }) => ({ content: [{ type: 'text', text }] })
    );

    server.registerTool(
        'add',
        {
            title: 'Add numbers',
            description: 'Add two numbers and return their sum, as text and as structured content.',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: {
                    a: { type: 'number', description: 'The first addend.' },
                    b: { type: 'number', description: 'The second addend.' }
                },
                required: ['a', 'b'],
                additionalProperties: false
            }),
            outputSchema: fromJsonSchema({
                type: 'object',
                properties: { sum: { type: 'number', description: 'a + b' } },
                required: ['sum']
            }),
            annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
        },
        async ({ a, b }) => {
            const sum = a + b;
            return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
        }
    );

    server.registerTool(
        'write_note',
        {
            title: 'Write a note',
            description:
                'Store a short note in server memory and return its id; the note can then be read as the resource note://{id}. Changes server state.',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: {
                    text: { type: 'string', description: 'The note text, at most 1000 characters.', maxLength: 1000 }
                },
                required: ['text'],
                additionalProperties: false
            }),
            annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
        },
        async ({ text }) => {
            const id = String(nextNote++);
            notes.set(id, text);
            return { content: [{ type: 'text', text: `stored note ${id} (note://${id})` }] };
        }
    );

    server.registerPrompt(
        'summarize',
        {
            title: 'Summarize',
            description: 'Ask the model for a one-paragraph summary of a text.',
            argsSchema: fromJsonSchema({
                type: 'object',
                properties: {
                    text: { type: 'string', description: 'The text to summarize.' }
                },
                required: ['text']
            })
        },
        ({ text }) => ({
            messages: [{ role: 'user', content: { type: 'text', text: `Summarize in one paragraph:\n\n${text}` } }]
        })
    );

    server.registerResource(
        'server-info',
        'info://server',
        { title: 'Server info', description: 'A static text about this server.', mimeType: 'text/plain' },
        async uri => ({
            contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'mcp-eval ts-v2 test server (SDK 2.4.0).' }]
        })
    );

    server.registerResource(
        'note',
        new ResourceTemplate('note://{id}', {
            list: async () => ({
                resources: [...notes.keys()].map(id => ({ uri: `note://${id}`, name: `note ${id}`, mimeType: 'text/plain' }))
            })
        }),
        { title: 'Note', description: 'A note stored with write_note, by id.', mimeType: 'text/plain' },
        async (uri, { id }) => {
            const text = notes.get(String(id));
            if (text === undefined) {
                // -32602 with data.uri (a plain Error would become -32603).
                throw new ResourceNotFoundError(uri.href, `Resource not found: ${uri.href}`);
            }
            return { contents: [{ uri: uri.href, mimeType: 'text/plain', text }] };
        }
    );

    return server;
}

if (opts.stdio) {
    // stdout carries the protocol only; nothing else is printed there.
    const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
    serveStdio(() => buildServer());
} else {
    serveHTTP();
}

function serveHTTP() {
const handler = createMcpHandler(() => buildServer(), { legacy: opts.legacy });
const nodeHandler = toNodeHandler({
    // DNS-rebinding protection (Host and Origin must be loopback) in front of the
    // SDK entry, which is deliberately validation-free.
    fetch: async request =>
        opts['no-guards']
            ? handler.fetch(request)
            : hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
              originValidationResponse(request, localhostAllowedOrigins()) ??
              handler.fetch(request)
});

const httpServer = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') {
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
function stop() {
    if (stopping) return;
    stopping = true;
    httpServer.closeAllConnections?.();
    httpServer.close(() => process.exit(0));
    handler.close().catch(() => {});
    setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
}
