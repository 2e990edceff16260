/**
 * A protocol provider's life in pi's registries (rpi's tests #38, #39, #42, #43, #44 as pier behaviours): a load
 * phase's `unregister_provider` leaves nothing behind, a /reload replaces the previous generation's providers, the
 * end of the session unregisters them, and two sessions of one process running the same extension (the chamber's
 * case) each reach their own extension process, whatever the other one does. Each session's pi model runtime holds
 * its own registrations, so the same API name in two sessions never crosses.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type Api, type AssistantMessage, type Model, normalizeContext } from "@earendil-works/pi-ai";
import { createPierSession, type PierSession } from "../../src/index.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const RAW = join(REPO_ROOT, "test", "fixtures", "process", "raw-provider");

const open = (dir: string, environment: Record<string, string> = {}, model = "raw-llm/default") =>
	createPierSession({
		cwd: dir,
		agentDir: dir,
		session: { kind: "memory" },
		extensionPaths: [RAW],
		model,
		extensionHost: { environment },
		onExtensionError: () => {},
	});

const lastAssistant = (pier: PierSession) =>
	pier.session.messages.findLast((m) => (m as { role: string }).role === "assistant") as AssistantMessage;
const textOf = (message: AssistantMessage) =>
	message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("|");

/** A turn straight through the session's agent, as pi's loop makes it: the stream's final message. */
async function turn(pier: PierSession, model: Model<Api>): Promise<AssistantMessage> {
	const stream = await pier.session.agent.streamFunction(model, normalizeContext({ messages: [] }), {});
	return stream.result();
}

describe("protocol providers in pi's registries", () => {
	test("unregister_provider during load: the provider is nowhere, and a turn of it fails with an error", async () => {
		using dir = tempDir();
		const pier = await open(dir.path, { PIER_RAW_PROVIDER_VARIANT: "unregister" });
		try {
			const runtime = pier.session.modelRuntime;
			assert.ok(runtime.getModel("raw-llm", "default"), "the provider kept is registered");
			assert.equal(runtime.getModel("gone-llm", "default"), undefined);
			assert.equal(runtime.getProvider("gone-llm"), undefined);
			assert.equal(pier.extensionHost.registry.providers.has("gone-llm"), false);
			const goneApi = "pier-extension/raw-provider/gone-llm";
			const model = { ...runtime.getModel("raw-llm", "default")!, api: goneApi, provider: "gone-llm" } as Model<Api>;
			const failed = await turn(pier, model);
			assert.equal(failed.stopReason, "error");
			assert.match(failed.errorMessage ?? "", /gone-llm/);
		} finally {
			await pier.dispose();
		}
	});

	test("a stream error ends its turn only: the session's next prompt is answered", async () => {
		using dir = tempDir();
		const pier = await open(dir.path);
		try {
			for (const prompt of ["bad-event", "throw", "error"]) {
				await pier.session.prompt(prompt);
				assert.equal(lastAssistant(pier).stopReason, "error", prompt);
			}
			await pier.session.prompt("hi");
			assert.equal(lastAssistant(pier).stopReason, "stop");
			assert.match(textOf(lastAssistant(pier)), /^raw: hello world\|messages=7 session$/);
		} finally {
			await pier.dispose();
		}
	});

	test("a /reload replaces the previous generation's providers; the end of the session unregisters them", async () => {
		using dir = tempDir();
		const variant = join(dir.path, "variant");
		writeFileSync(variant, "");
		const pier = await open(dir.path, { PIER_RAW_PROVIDER_VARIANT_FILE: variant });
		const oldApi = "pier-extension/raw-provider/raw-llm";
		const newApi = "pier-extension/raw-provider/raw-llm-v2";
		const runtime = pier.session.modelRuntime;
		try {
			const before = runtime.getModel("raw-llm", "default")!;
			assert.equal(before.api, oldApi);
			await pier.session.prompt("hi");
			assert.match(textOf(lastAssistant(pier)), /^raw: hello world/);

			writeFileSync(variant, "v2");
			await pier.session.reload();
			assert.equal(runtime.getModel("raw-llm", "default"), undefined, "the retired provider left pi's model list");
			assert.equal(runtime.getProvider("raw-llm"), undefined);
			assert.equal(runtime.getModel("raw-llm-v2", "default")?.api, newApi);
			const retired = await turn(pier, before);
			assert.equal(retired.stopReason, "error");
			assert.match(retired.errorMessage ?? "", /raw-llm/);

			assert.equal(await pier.session.setModel(runtime.getModel("raw-llm-v2", "default")!), undefined);
			await pier.session.prompt("again");
			assert.match(textOf(lastAssistant(pier)), /^raw: hello world/);
			assert.equal(lastAssistant(pier).api, newApi);
		} finally {
			await pier.dispose();
			assert.equal(runtime.getModel("raw-llm-v2", "default"), undefined, "shutdown unregistered the provider");
		}
	});

	test("two sessions with the same extension and API each reach their own; one's reload and end leave the other", async () => {
		using dir = tempDir();
		const a = await open(dir.path, { PIER_RAW_PROVIDER_MARKER: "alpha" });
		const b = await open(dir.path, { PIER_RAW_PROVIDER_MARKER: "beta" });
		let bOpen = true;
		try {
			const modelA = a.session.modelRuntime.getModel("raw-llm", "default")!;
			const modelB = b.session.modelRuntime.getModel("raw-llm", "default")!;
			assert.equal(modelA.api, modelB.api, "one API name: each session's runtime holds its own registration");
			const [ta, tb] = await Promise.all([turn(a, modelA), turn(b, modelB)]);
			assert.match(textOf(ta), /^alpha: hello world/);
			assert.match(textOf(tb), /^beta: hello world/);

			await b.session.reload();
			await a.session.prompt("hi");
			assert.match(textOf(lastAssistant(a)), /^alpha: hello world/);
			await b.session.prompt("hi");
			assert.match(textOf(lastAssistant(b)), /^beta: hello world/);

			await a.dispose();
			await b.session.prompt("still there?");
			assert.match(textOf(lastAssistant(b)), /^beta: hello world/);
			await b.dispose();
			bOpen = false;
		} finally {
			await a.dispose().catch(() => {});
			if (bOpen) await b.dispose();
		}
	});
});
