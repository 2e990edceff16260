/**
 * A protocol provider's life in pi's registries (rpi's tests #38, #39, #42, #43, #44 as pier behaviours): a load
 * phase's `unregister_provider` leaves nothing behind, a /reload replaces the previous generation's providers, the
 * end of the session unregisters them, and two sessions of one process running the same extension (the chamber's
 * case) each reach their own extension process, whatever the other one does.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type Api, type AssistantMessage, getApiProvider, type Model } from "@earendil-works/pi-ai";
import { hostNamespace } from "../../src/extensions/bridge/providers.js";
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
	const stream = await pier.session.agent.streamFn(model, { messages: [] }, {});
	return stream.result();
}

describe("protocol providers in pi's registries", () => {
	test("unregister_provider during load: the provider is nowhere, and its API fails actionably", async () => {
		using dir = tempDir();
		const pier = await open(dir.path, { PIER_RAW_PROVIDER_VARIANT: "unregister" });
		try {
			const registry = pier.session.modelRegistry;
			assert.ok(registry.find("raw-llm", "default"), "the provider kept is registered");
			assert.equal(registry.find("gone-llm", "default"), undefined);
			assert.equal(pier.extensionHost.registry.providers.has("gone-llm"), false);
			const goneApi = `pier-extension/raw-provider/gone-llm${hostNamespace(pier.extensionHost)}`;
			assert.equal(getApiProvider(goneApi as Api), undefined);
			const model = { ...registry.find("raw-llm", "default")!, api: goneApi, provider: "gone-llm" } as Model<Api>;
			const failed = await turn(pier, model);
			assert.equal(failed.stopReason, "error");
			assert.ok(
				failed.errorMessage?.startsWith(`No API provider registered for api: ${goneApi} `),
				failed.errorMessage,
			);
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
		// Hosts of earlier tests in this process make this one's API names end in ~<n> (hostNamespace).
		const namespace = hostNamespace(pier.extensionHost);
		const oldApi = `pier-extension/raw-provider/raw-llm${namespace}`;
		const newApi = `pier-extension/raw-provider/raw-llm-v2${namespace}`;
		try {
			const before = pier.session.modelRegistry.find("raw-llm", "default")!;
			assert.equal(before.api, oldApi);
			assert.ok(getApiProvider(oldApi as Api));
			await pier.session.prompt("hi");
			assert.match(textOf(lastAssistant(pier)), /^raw: hello world/);

			writeFileSync(variant, "v2");
			await pier.session.reload();
			const registry = pier.session.modelRegistry;
			assert.equal(registry.find("raw-llm", "default"), undefined, "the retired provider left pi's model list");
			assert.equal(getApiProvider(oldApi as Api), undefined, "and pi-ai's API registry");
			assert.equal(registry.find("raw-llm-v2", "default")?.api, newApi);
			assert.ok(getApiProvider(newApi as Api));
			const retired = await turn(pier, before);
			assert.equal(retired.stopReason, "error");
			assert.match(retired.errorMessage ?? "", new RegExp(`No API provider registered for api: ${oldApi} `));

			assert.equal(await pier.session.setModel(registry.find("raw-llm-v2", "default")!), undefined);
			await pier.session.prompt("again");
			assert.match(textOf(lastAssistant(pier)), /^raw: hello world/);
			assert.equal(lastAssistant(pier).api, newApi);
		} finally {
			const registry = pier.session.modelRegistry;
			await pier.dispose();
			assert.equal(registry.find("raw-llm-v2", "default"), undefined, "shutdown unregistered the provider");
			assert.equal(getApiProvider(newApi as Api), undefined, "pi-ai no longer routes to it");
		}
	});

	test("two sessions with the same extension and API each reach their own; one's reload and end leave the other", async () => {
		using dir = tempDir();
		const a = await open(dir.path, { PIER_RAW_PROVIDER_MARKER: "alpha" });
		const b = await open(dir.path, { PIER_RAW_PROVIDER_MARKER: "beta" });
		let bOpen = true;
		try {
			const modelA = a.session.modelRegistry.find("raw-llm", "default")!;
			const modelB = b.session.modelRegistry.find("raw-llm", "default")!;
			assert.notEqual(modelA.api, modelB.api, "a host of its own, an API name of its own");
			const [ta, tb] = await Promise.all([turn(a, modelA), turn(b, modelB)]);
			assert.match(textOf(ta), /^alpha: hello world/);
			assert.match(textOf(tb), /^beta: hello world/);

			// B's reload resets pi-ai's process-wide API registry (pi's refresh): A's turns do not go through it.
			await b.session.reload();
			// pi calls pi-ai directly for compaction and branch summaries: A's API must still resolve there.
			assert.ok(getApiProvider(modelA.api), "B's reload left A's API in pi-ai's registry");
			await a.session.prompt("hi");
			assert.match(textOf(lastAssistant(a)), /^alpha: hello world/);
			await b.session.prompt("hi");
			assert.match(textOf(lastAssistant(b)), /^beta: hello world/);

			await a.dispose();
			assert.ok(getApiProvider(modelB.api), "A's end left B's API in pi-ai's registry");
			assert.equal(getApiProvider(modelA.api), undefined, "and took its own");
			await b.session.prompt("still there?");
			assert.match(textOf(lastAssistant(b)), /^beta: hello world/);
			const stale = await turn(b, modelA);
			assert.equal(stale.stopReason, "error", "B never answers A's API");
			assert.match(stale.errorMessage ?? "", /No API provider registered for api/);
			await b.dispose();
			bOpen = false;
		} finally {
			await a.dispose().catch(() => {});
			if (bOpen) await b.dispose();
		}
	});
});
