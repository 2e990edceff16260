/**
 * rpi's provider form with pier's model list (`models`, as in pier's `registerProvider(id, {complete, models})`):
 * from QuickJS and from the Node kit, pi's model registry offers exactly the listed models, with their details;
 * a provider without a list offers `default`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { createPierSession } from "../../src/index.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { KIT_STREAM_PROVIDER, QUICKJS_STREAM_PROVIDER } from "../helpers/provider-stream.js";

for (const fixture of [QUICKJS_STREAM_PROVIDER, KIT_STREAM_PROVIDER]) {
	test(`a stream provider's models reach pi's model registry (${fixture.runtime})`, async () => {
		using dir = tempDir();
		const pier = await createPierSession({
			cwd: dir.path,
			agentDir: dir.path,
			session: { kind: "memory" },
			extensionPaths: [join(REPO_ROOT, fixture.path)],
			model: "stream-llm-listed/large",
			onExtensionError: () => {},
		});
		try {
			const runtime = pier.session.modelRuntime;
			const listed = runtime.getModels("stream-llm-listed");
			assert.deepEqual(
				listed.map((m) => [m.id, m.name, m.contextWindow]),
				[
					["small", "stream-llm-listed/small", 128_000],
					["large", "Listed large", 32_000],
				],
			);
			assert.deepEqual(
				runtime.getModels("stream-llm").map((m) => m.id),
				["default"],
				"without a list: default",
			);
			assert.equal(pier.session.model?.id, "large");
		} finally {
			await pier.dispose();
		}
	});
}
