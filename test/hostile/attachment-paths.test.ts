/**
 * `@file` attachments against a real `pier serve` and a local OpenAI-compatible server that records what the model
 * receives. The attacks: a project file named with a Unicode space whose ASCII twin is a symlink out of the project
 * (pi's reader rewrites the space and reads the twin), the same through a directory name, a name with no twin (pi's
 * reader exits the process), and an image whose header declares 16,000×16,000 pixels in a 249 KB file.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { deflateSync } from "node:zlib";
import { type ApiClient, type EventReader, type Serve, servedChamber } from "../helpers/chamber.js";
import { type FakeOpenAI, localProvider, startFakeOpenAI } from "../helpers/openai-server.js";
import { tempDir } from "../helpers/pier-cli.js";

const SECRET = "PRIVATE-KEY-OUTSIDE-THE-PROJECT";
const MiB = 1024 * 1024;
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

function crc32(bytes: Buffer): number {
	let crc = 0xffffffff;
	for (const byte of bytes) {
		crc ^= byte;
		for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
	}
	return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(data.length, 0);
	head.write(type, 4, "latin1");
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
	return Buffer.concat([head, data, crc]);
}

/** A real grey PNG of `width`×`height` pixels: every row filter 0, every pixel `shade`. */
function greyPng(width: number, height: number, shade = 0): Buffer {
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr.writeUInt8(8, 8); // bit depth
	ihdr.writeUInt8(0, 9); // greyscale
	const row = Buffer.alloc(width + 1, shade);
	row[0] = 0;
	const raw = Buffer.alloc(row.length * height);
	for (let y = 0; y < height; y++) row.copy(raw, y * row.length);
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk("IHDR", ihdr),
		chunk("IDAT", deflateSync(raw, { level: 9 })),
		chunk("IEND", Buffer.alloc(0)),
	]);
}

describe("@file attachments: the file checked is the file read", () => {
	const dir = tempDir("pier-attach-");
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	const secret = join(dir.path, "id_ed25519");
	let server: FakeOpenAI;
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		mkdirSync(project, { recursive: true });
		writeFileSync(secret, `${SECRET}\n`);
		// The repro of the finding: the NBSP name is the project's own file, its ASCII twin a symlink out.
		writeFileSync(join(project, "shot\u00a0.png"), "x");
		symlinkSync(secret, join(project, "shot .png"));
		// The same through a directory whose name holds an em space.
		mkdirSync(join(project, "caps\u2003dir"));
		writeFileSync(join(project, "caps\u2003dir", "a.png"), "y");
		symlinkSync(dir.path, join(project, "caps dir"));
		writeFileSync(join(dir.path, "a.png"), `${SECRET}\n`);
		// No twin at all: pi's reader says "File not found" and exits the process it runs in.
		writeFileSync(join(project, "lonely\u3000.png"), "z");
		server = await startFakeOpenAI({ reply: "text" });
		writeFileSync(
			join(agentDir, "models.json"),
			JSON.stringify({ providers: { local: localProvider(server.baseUrl) } }),
		);
		({ serve, api } = await servedChamber(["--no-examples", "--model", "local/local-model"], {
			agentDir,
			cwd: project,
			stateDir: join(dir.path, "state"),
		}));
	});
	after(async () => {
		await serve?.stop();
		await server?.close();
		dir[Symbol.dispose]();
	});

	const prompt = (id: string, body: { text: string; files: string[] }) =>
		api.call<{ error?: { code: string; message: string } }>("POST", `/api/pi/sessions/${id}/prompt`, body);
	/** The next answer after those already seen on this stream. */
	const answered = async (stream: EventReader) => {
		const seen = stream.events.filter((e) => e.event === "agent.end").length;
		await stream.waitFor(
			(e) => e.event === "agent.end" && stream.events.filter((x) => x.event === "agent.end").indexOf(e) >= seen,
			"the answer",
			60_000,
		);
	};
	const lastUserContent = () =>
		JSON.stringify(
			server.requests
				.at(-1)
				?.body.messages.filter((m) => m.role === "user")
				.at(-1)?.content,
		);

	test("a Unicode-space name attaches its own file, never its ASCII twin outside the project", async () => {
		const { id, stream } = await api.newSession();
		for (const [file, own] of [
			["shot\u00a0.png", "x"],
			["caps\u2003dir/a.png", "y"],
		] as const) {
			const sent = await prompt(id, { text: "see", files: [file] });
			assert.equal(sent.status, 202, `${file}: ${JSON.stringify(sent.body)}`);
			await answered(stream);
			const content = lastUserContent();
			assert.ok(content.includes(JSON.stringify(file).slice(1, -1)), `${file} is named as sent: ${content}`);
			assert.ok(content.includes(`\\n${own}\\n`), `${file}'s own text is attached: ${content}`);
		}
		assert.ok(!JSON.stringify(server.requests).includes(SECRET), "the twin's target never reaches the model");
		stream.close();
	});

	test("an attachment pi's reader could not open is that request's answer; the daemon goes on", async () => {
		const { id, stream } = await api.newSession();
		const sent = await prompt(id, { text: "see", files: ["lonely\u3000.png"] });
		assert.equal(sent.status, 202, JSON.stringify(sent.body));
		await answered(stream);
		assert.ok(lastUserContent().includes("\\nz\\n"));
		const gone = await prompt(id, { text: "see", files: ["vanished.png"] });
		assert.equal(gone.status, 422);
		assert.match(gone.body.error!.message, /@vanished\.png: no such file/);
		assert.equal(serve.process.exitCode, null, serve.output());
		assert.equal((await api.call("GET", "/api/pi/sessions")).status, 200);
		stream.close();
	});

	test("an image bomb is refused from its header; an image just under the bound is resized off the main thread", async () => {
		const { id, stream } = await api.newSession();
		const bomb = greyPng(16_000, 16_000);
		assert.ok(bomb.length < 300 * 1024, `the bomb is ${bomb.length} bytes`);
		writeFileSync(join(project, "bomb.png"), bomb);
		writeFileSync(join(project, "past.png"), greyPng(7072, 7072)); // 50,013,184 pixels: just past the bound
		for (const file of ["bomb.png", "past.png"]) {
			const refused = await prompt(id, { text: "see", files: [file] });
			assert.equal(refused.status, 422, `${file}: ${JSON.stringify(refused.body)}`);
			assert.match(refused.body.error!.message, new RegExp(`@${file.replace(".", "\\.")}: \\d+×\\d+ pixels, over the`));
		}

		writeFileSync(join(project, "big.png"), greyPng(7071, 7071, 200)); // 49,999,041 pixels: allowed
		const pid = serve.process.pid!;
		const rssBefore = rssOf(pid);
		const sending = prompt(id, { text: "see", files: ["big.png"] });
		let sent: Awaited<typeof sending> | undefined;
		void sending.then((reply) => {
			sent = reply;
		});
		// While the image decodes, the daemon answers others: the decoder is not on its event loop.
		await new Promise((resolve) => setTimeout(resolve, 300));
		assert.equal((await api.call("GET", "/api/pi/sessions")).status, 200);
		assert.equal(sent, undefined, "the listing was answered while the image was still being resized");
		const reply = await sending;
		assert.equal(reply.status, 202, JSON.stringify(reply.body));
		await answered(stream);
		const content = lastUserContent();
		assert.match(content, /original 7071x7071, displayed at 2000x2000/);
		assert.match(content, /"type":"image_url"/);
		const grew = rssOf(pid) - rssBefore;
		assert.ok(grew < 150 * MiB, `the daemon keeps ${(grew / MiB).toFixed(0)} MiB after the resize`);
		stream.close();
	});
});
