/**
 * The chamber's extension list under the extension policy, over a real `pier serve`: what the policy kept out (a
 * blocked process extension, a blocked in-process one, a blocked package) is listed as `blocked`, with the
 * refusal naming the field and the pattern, and never a server path; what it allows runs.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

interface Listed {
	name: string;
	kind: string;
	state: string;
	reason?: string;
	tools: string[];
	package?: { name: string };
}

const QUICKJS_MAIN = `export default function (pi) {
	pi.registerTool({ name: "ok_qjs", label: "t", description: "t", parameters: { type: "object" },
		execute: async () => ({ content: [{ type: "text", text: "ok" }] }) });
}
`;

describe("the chamber's extension list says what the extension policy refused", () => {
	const dir = tempDir("pier-policy-");
	const agentDir = join(dir.path, "agent");
	const exts = join(agentDir, "extensions");
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		mkdirSync(join(exts, "proc"), { recursive: true });
		writeFileSync(
			join(exts, "proc", "pi-extension.json"),
			JSON.stringify({ schemaVersion: 1, id: "held-proc", executable: "./main.mjs", capabilities: ["tools"] }),
		);
		writeFileSync(join(exts, "proc", "main.mjs"), "#!/usr/bin/env node\n", { mode: 0o755 });
		mkdirSync(join(exts, "qjs"), { recursive: true });
		writeFileSync(join(exts, "qjs", "index.mjs"), QUICKJS_MAIN);
		writeFileSync(
			join(exts, "qjs", "pi-extension.json"),
			JSON.stringify({
				schemaVersion: 1,
				id: "ok-qjs",
				runtime: "quickjs",
				entry: "./index.mjs",
				capabilities: ["tools"],
			}),
		);
		writeFileSync(join(exts, "plain.ts"), "export default function () {}\n");
		const vendor = join(dir.path, "vendor", "kit");
		mkdirSync(join(vendor, "extensions"), { recursive: true });
		writeFileSync(join(vendor, "extensions", "kit.ts"), "export default function () {}\n");
		writeFileSync(
			join(agentDir, "settings.json"),
			JSON.stringify({
				packages: [vendor],
				extensionPolicy: { block: ["id:held-*", "id:plain", join(dir.path, "vendor")] },
			}),
		);
		({ serve, api } = await servedChamber([], { agentDir, cwd: dir.path, stateDir: join(dir.path, "state") }));
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("blocked extensions and packages are listed with the pattern; allowed ones run", async () => {
		const { id, stream } = await api.newSession();
		const reply = await api.call<{ extensions: Listed[] }>("GET", `/api/pi/extensions?session=${id}`);
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		const raw = JSON.stringify(reply.body);
		assert.ok(!raw.includes(dir.path) && !raw.includes(REPO_ROOT), `no server paths: ${raw}`);
		const byName = (name: string) => {
			const found = reply.body.extensions.find((e) => e.name === name);
			assert.ok(found, `${name} in ${raw}`);
			return found;
		};
		assert.deepEqual([byName("ok-qjs").state, byName("ok-qjs").tools], ["enabled", ["ok_qjs"]]);
		const proc = byName("held-proc");
		assert.deepEqual([proc.kind, proc.state], ["process", "blocked"]);
		assert.match(proc.reason ?? "", /blocked by the extension policy in …settings\.json: .*pattern "id:held-\*"/);
		const plain = byName("plain");
		assert.deepEqual([plain.kind, plain.state], ["typescript", "blocked"]);
		assert.match(plain.reason ?? "", /pattern "id:plain"/);
		const kit = byName("kit");
		assert.deepEqual([kit.state, kit.package?.name], ["blocked", "kit"]);
		assert.match(kit.reason ?? "", /extensionPolicy\.block pattern "…vendor"/);
		stream.close();
	});
});
