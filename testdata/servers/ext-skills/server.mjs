// A Skills server (io.modelcontextprotocol/skills, SEP-2640) built with the
// TypeScript SDK v2's own implementation of the extension,
// @modelcontextprotocol/server 2.4.0's ext/skills: SkillsExtension.load
// builds the catalog (frontmatter, sha256 digests and sizes, directories)
// from the files below, and attach() serves skills/list, skills/get,
// resources/directory/read and the skill:// files, and declares the
// extension. mcp-eval's tests run the skills/* checks against it as a
// correct real server.
//
// Usage:
//   node server.mjs [--port N] [--host 127.0.0.1] [--stdio]
//   --bad-digest  serves references/regions.md edited after the listing
//                 was made, through a SkillSource of its own that keeps
//                 the catalog's entries (a fault the skills/file-digest
//                 check exists for)
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
import { DIRECTORY_MIME_TYPE, memorySkillFiles, SkillsExtension } from '@modelcontextprotocol/server/ext/skills';

const { values: opts } = parseArgs({
    options: {
        port: { type: 'string', default: process.env.PORT ?? '0' },
        host: { type: 'string', default: '127.0.0.1' },
        stdio: { type: 'boolean', default: false },
        'bad-digest': { type: 'boolean', default: false }
    }
});
const port = Number.parseInt(opts.port, 10);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`server.mjs: bad --port ${JSON.stringify(opts.port)}`);
    process.exit(2);
}

// Two skills, one with a nested supporting directory, one with a
// subdirectory of templates; paths are relative to the skill namespace.
const files = {
    'forecast-guide/SKILL.md': [
        '---',
        'name: forecast-guide',
        'description: Explain a forecast from get_forecast region by region, in plain words.',
        'license: Apache-2.0',
        'metadata:',
        '  version: "1.2.0"',
        '  audience: support',
        '---',
        '# Forecast guide',
        '',
        'Call get_forecast once per region the user names. references/regions.md lists',
        'the regions the server knows; say so when a region is not among them.',
        ''
    ].join('\n'),
    'forecast-guide/references/regions.md': '# Regions\n\nSpringfield, Shelbyville, Capital City.\n',
    'release-notes/SKILL.md': [
        '---',
        'name: release-notes',
        'description: Write release notes in the house format from a list of merged changes.',
        '---',
        '# Release notes',
        '',
        'Group the changes as templates/entry.md shows, newest first.',
        ''
    ].join('\n'),
    'release-notes/templates/entry.md': '## {version}\n\n- {change}\n'
};

const catalog = await SkillsExtension.load(memorySkillFiles(files), { onWarning: w => console.error(`skills: ${w.path}: ${w.message}`) });
const skills = opts['bad-digest'] ? staleSource(catalog.entries) : catalog;

// staleSource serves the catalog's entries, loaded from files, while
// references/regions.md has since been edited: the listing's digest and
// size no longer describe what resources/read returns.
function staleSource(entries) {
    const served = { ...files, 'forecast-guide/references/regions.md': files['forecast-guide/references/regions.md'] + 'Ogdenville.\n' };
    const path = uri => uri.replace(/^skill:\/\//, '');
    return new SkillsExtension({
        source: {
            async list() {
                return { skills: [...entries] };
            },
            async get(uri) {
                return entries.find(s => s.uri === uri);
            },
            async read(uri) {
                const text = served[path(uri)];
                return text === undefined ? undefined : { text, mimeType: 'text/markdown' };
            },
            async readDirectory(uri) {
                const dir = path(uri).replace(/\/$/, '');
                const children = new Map();
                for (const key of Object.keys(served)) {
                    if (!key.startsWith(dir + '/')) continue;
                    const [name, ...rest] = key.slice(dir.length + 1).split('/');
                    const child = `skill://${dir}/${name}`;
                    children.set(child, rest.length === 0 ? { uri: child, name, mimeType: 'text/markdown' } : { uri: child, name, mimeType: DIRECTORY_MIME_TYPE });
                }
                return children.size === 0 ? undefined : { resources: [...children.values()] };
            }
        }
    });
}

function buildServer() {
    const server = new McpServer(
        { name: 'mcp-eval-ext-skills', version: '1.0.0' },
        {
            instructions: 'Test server for mcp-eval: two skills served with the Skills extension, and the tool one of them teaches.',
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
    server.registerTool(
        'get_forecast',
        {
            title: 'Get forecast',
            description: "Return tomorrow's forecast for a region.",
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { region: { type: 'string', description: 'A region, e.g. Springfield.' } },
                required: ['region'],
                additionalProperties: false
            }),
            annotations: { readOnlyHint: true, openWorldHint: false }
        },
        async ({ region }) => ({ content: [{ type: 'text', text: `Tomorrow in ${region}: 21 °C, sunny.` }] })
    );
    skills.attach(server);
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
