/** The bench's one HTTP client: a request to a chamber on 127.0.0.1 with a device token; resolves with the body. */
import { request } from "node:http";

export function httpCall(port: number, token: string, method: string, path: string, body?: unknown): Promise<string> {
	return new Promise((resolve, reject) => {
		const payload = body === undefined ? undefined : JSON.stringify(body);
		const req = request(
			{
				host: "127.0.0.1",
				port,
				method,
				path,
				// A fresh connection each call: Node 20's global agent keeps sockets alive, and reusing one the server
				// is closing (for idleness, or because the daemon is paused) resets the request.
				agent: false,
				headers: {
					authorization: `Bearer ${token}`,
					...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
				},
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on("data", (c: Buffer) => chunks.push(c));
				res.on("end", () => {
					const text = Buffer.concat(chunks).toString("utf8");
					if ((res.statusCode ?? 500) >= 300)
						reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
					else resolve(text);
				});
				res.on("error", reject);
			},
		);
		req.on("error", reject);
		req.end(payload);
	});
}
