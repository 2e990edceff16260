/**
 * A real MCP server over streamable HTTP on 127.0.0.1 (JSON-RPC 2.0 in POST bodies, answered as application/json,
 * as the transport spec allows), written small enough to read. Every request needs `Authorization: Bearer <token>`
 * with a token `accepts`; anything else gets 401 with a `WWW-Authenticate` challenge, which names the protected
 * resource metadata when the server has an authorization server (the MCP authorization spec, RFC 9728).
 * Tools: `echo` answers with its text, `whoami` with the server's name.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface McpHttpServer {
	/** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
	url: string;
	/** The `Authorization` header of every request it got, in order (none for requests that had none). */
	authorizations: (string | undefined)[];
	close(): Promise<void>;
	[Symbol.asyncDispose](): Promise<void>;
}

export interface McpHttpOptions {
	name: string;
	/** Whether a bearer token is one this server takes. */
	accepts: (token: string) => boolean;
	/** The issuer of the authorization server this resource trusts: served as its protected resource metadata. */
	authorizationServer?: string;
}

function readBody(request: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		let body = "";
		request.setEncoding("utf8");
		request.on("data", (chunk: string) => (body += chunk));
		request.on("end", () => resolve(body));
		request.on("error", reject);
	});
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

interface JsonRpcRequest {
	jsonrpc: "2.0";
	id?: string | number;
	method: string;
	params?: { protocolVersion?: string; name?: string; arguments?: { text?: string } };
}

function answer(name: string, message: JsonRpcRequest): unknown {
	const { method, params } = message;
	switch (method) {
		case "initialize":
			return {
				protocolVersion: params?.protocolVersion ?? "2025-06-18",
				capabilities: { tools: {} },
				serverInfo: { name, version: "1.0.0" },
			};
		case "ping":
			return {};
		case "tools/list":
			return {
				tools: [
					{
						name: "echo",
						description: "Answers with the text it is given",
						inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
					},
					{ name: "whoami", description: "Answers with the server's name", inputSchema: { type: "object" } },
				],
			};
		case "tools/call":
			if (params?.name === "echo")
				return { content: [{ type: "text", text: `${name} echo: ${params.arguments?.text ?? ""}` }] };
			if (params?.name === "whoami") return { content: [{ type: "text", text: name }] };
			throw Object.assign(new Error(`unknown tool ${params?.name}`), { code: -32602 });
		default:
			throw Object.assign(new Error(`method not found: ${method}`), { code: -32601 });
	}
}

export async function startMcpHttpServer(options: McpHttpOptions): Promise<McpHttpServer> {
	const authorizations: (string | undefined)[] = [];
	let origin = "";
	const metadataPath = "/.well-known/oauth-protected-resource/mcp";
	const server = createServer(async (request, response) => {
		const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
		if (options.authorizationServer && request.method === "GET" && path === metadataPath) {
			json(response, 200, { resource: `${origin}/mcp`, authorization_servers: [options.authorizationServer] });
			return;
		}
		if (path !== "/mcp") {
			json(response, 404, { error: "not found" });
			return;
		}
		const authorization = request.headers.authorization;
		authorizations.push(authorization);
		const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
		if (!token || !options.accepts(token)) {
			await readBody(request);
			const challenge = options.authorizationServer
				? `Bearer error="invalid_token", resource_metadata="${origin}${metadataPath}"`
				: 'Bearer realm="mcp", error="invalid_token"';
			json(response, 401, { error: "invalid_token" }, { "www-authenticate": challenge });
			return;
		}
		// No server-to-client stream and no session to end: the transport spec's answers for both.
		if (request.method !== "POST") {
			response.writeHead(405, { allow: "POST" }).end();
			return;
		}
		const body = JSON.parse(await readBody(request)) as JsonRpcRequest | JsonRpcRequest[];
		const requests = (Array.isArray(body) ? body : [body]).filter((message) => message.id !== undefined);
		if (requests.length === 0) {
			response.writeHead(202).end();
			return;
		}
		const replies = requests.map((message) => {
			try {
				return { jsonrpc: "2.0", id: message.id, result: answer(options.name, message) };
			} catch (error) {
				const { code, message: text } = error as { code?: number; message: string };
				return { jsonrpc: "2.0", id: message.id, error: { code: code ?? -32603, message: text } };
			}
		});
		json(response, 200, Array.isArray(body) ? replies : replies[0]);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const close = () =>
		new Promise<void>((resolve) => {
			server.closeAllConnections();
			server.close(() => resolve());
		});
	return { url: `${origin}/mcp`, authorizations, close, [Symbol.asyncDispose]: close };
}
