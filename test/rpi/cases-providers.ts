/**
 * rpi's provider registration and lifecycle tests: what holds at the host (#40, #41, extension_api_conformance.rs)
 * and, in a pier session, what the session's pi model runtime holds after a load phase's unregistering (#38), a
 * /reload (#42), the end of the session (#43) and with two sessions of one process registering the same API (#44).
 * Streaming is in cases-provider-streams.ts, except #39 (a turn of a provider no extension registers, over #38's
 * fixture). pier's decision throughout (docs/protocol-v1.md §4.4): each provider streams through an API of its own,
 * `pier-extension/<extension>/<provider>`, held by the session's own model runtime, so rpi's checks on the declared
 * api name become checks on pier's name and on the registration's `api`, and rpi's checks on its process-wide API
 * registry become checks on the session's runtime and on where its turns go.
 */
import assert from "node:assert/strict";
import type { Api } from "@earendil-works/pi-ai";
import type { RpiCase } from "./cases.js";
import type { RpiSource } from "./source.js";
import { OWN_API_NAMES, openSession, providerSession, streamTurn, terminal, textOf } from "./session.js";
import { loadOk, loadQuickJs } from "./support.js";

/** quickjs-provider-unregister.mjs as extension `id`, in a session on `replaced`, the provider it keeps. */
const unregisterSession = (source: RpiSource, id: string) =>
	providerSession(source, "quickjs-provider-unregister.mjs", id, "replaced");

export const PROVIDER_CASES: RpiCase[] = [
	{
		n: "extension_api_conformance.rs",
		name: "provider_registration_loads_with_the_provider_capability",
		uses: ["provider-registration.mjs"],
		async run(source, checks) {
			await using ext = await loadOk(source.fixture("provider-registration.mjs"), {
				id: "provider-registration",
				capabilities: ["provider"],
			});
			await checks.that("one provider: id, api, label, capabilities", () => {
				const providers = [...ext.host.registry.providers.values()].map((p) => p.descriptor);
				assert.equal(providers.length, 1);
				const { id, api, label, capabilities } = providers[0]!;
				assert.deepEqual(
					{ id, api, label, capabilities },
					{
						id: "provider-registration",
						api: "provider-registration-api",
						label: "Provider Registration",
						capabilities: ["streaming"],
					},
				);
			});
		},
	},
	{
		n: "extension_api_conformance.rs",
		name: "provider_registration_requires_the_provider_capability",
		uses: ["provider-registration.mjs"],
		async run(source, checks) {
			await using ext = await loadQuickJs(source.fixture("provider-registration.mjs"), {
				id: "provider-registration-ungranted",
				capabilities: ["commands"],
			});
			await checks.that("the load fails, naming provider; nothing is registered", () => {
				assert.equal(ext.failures.length, 1);
				assert.match(ext.failures[0]!.toLowerCase(), /provider/);
				assert.equal(ext.host.registry.providers.size, 0);
			});
		},
	},
	{
		n: 40,
		name: "quickjs_provider_invalid_registrations_fail_at_load",
		uses: [
			"provider-invalid-id.mjs",
			"provider-no-stream.mjs",
			"provider-duplicate.mjs",
			"provider-unregister-unknown.mjs",
		],
		async run(source, checks) {
			for (const [fixture, expected] of [
				["provider-invalid-id.mjs", "provider id"],
				["provider-no-stream.mjs", "registerProvider requires a stream function"],
				["provider-duplicate.mjs", "duplicate provider"],
				["provider-unregister-unknown.mjs", "cannot unregister unknown provider"],
			] as const) {
				await using ext = await loadQuickJs(source.fixture(fixture), {
					id: fixture.replace(".mjs", ""),
					capabilities: ["provider"],
				});
				await checks.that(`${fixture} fails the load: "${expected}"`, () => {
					assert.equal(ext.failures.length, 1);
					assert.ok(ext.failures[0]!.toLowerCase().includes(expected.toLowerCase()), ext.failures[0]);
					assert.equal(ext.host.registry.providers.size, 0);
				});
			}
		},
	},
	{
		n: 41,
		name: "quickjs_provider_registration_is_load_phase_only",
		uses: ["provider-runtime-register.mjs"],
		async run(source, checks) {
			await using ext = await loadOk(source.fixture("provider-runtime-register.mjs"), {
				id: "provider-runtime-register",
				capabilities: ["provider", "event_hooks"],
			});
			await checks.that("no provider after the load", () => assert.equal(ext.host.registry.providers.size, 0));
			await checks.that('registerProvider in a hook fails: "load phase"; still no provider', async () => {
				const outcomes = await ext.host.emit("session_start", { reason: "test" });
				assert.equal(outcomes.length, 1);
				const result = outcomes[0]!.result;
				assert.equal(result.ok, false, `the hook succeeded: ${JSON.stringify(result)}`);
				assert.match(!result.ok ? result.error.message : "", /load phase/);
				assert.equal(ext.host.registry.providers.size, 0);
			});
		},
	},
	{
		n: 38,
		name: "quickjs_provider_unregister_removes_and_reregister_replaces",
		uses: ["quickjs-provider-unregister.mjs"],
		decision: OWN_API_NAMES,
		async run(source, checks) {
			await using session = await unregisterSession(source, "provider-unregister");
			await checks.that("one provider left: replaced, with the api of its last registration", () => {
				const providers = [...session.pier.extensionHost.registry.providers.values()].map((p) => p.descriptor);
				assert.deepEqual(
					providers.map((p) => [p.id, p.api]),
					[["replaced", "replaced-api-v2"]],
				);
			});
			const runtime = session.pier.session.modelRuntime;
			await checks.that("gone is not in the session's model runtime: no provider, no model", () => {
				assert.equal(runtime.getProvider("gone"), undefined);
				assert.equal(runtime.getModel("gone", "default"), undefined);
				assert.deepEqual(
					runtime.getModels().filter((m) => m.api === session.api("gone")),
					[],
					"no model streams through gone's API",
				);
			});
			await checks.that("no model streams through a declared api", () => {
				for (const declared of ["gone-api", "replaced-api-v1", "replaced-api-v2"])
					assert.deepEqual(
						runtime.getModels().filter((m) => m.api === declared),
						[],
						declared,
					);
			});
			await checks.that("replaced resolves, and the last registration answers its turns", async () => {
				assert.ok(runtime.getProvider("replaced"));
				assert.equal(session.model("replaced").api, session.api("replaced"));
				const { result } = await streamTurn(session, session.model("replaced"));
				assert.equal(textOf(result), "v2");
			});
		},
	},
	{
		n: 42,
		name: "quickjs_provider_reload_replaces_the_previous_generation",
		uses: ["quickjs-provider.mjs", "provider-registration.mjs"],
		decision: OWN_API_NAMES,
		async run(source, checks) {
			await using session = await providerSession(source, "quickjs-provider.mjs", "provider-reload", "fixture-llm");
			const newApi = session.api("provider-registration");
			const retired = session.model("fixture-llm");
			await checks.that("the first generation's fixture-llm resolves", () => {
				assert.ok(session.pier.session.modelRuntime.getProvider("fixture-llm"));
				assert.equal(retired.api, session.api("fixture-llm"));
			});
			session.rewrite(source.fixture("provider-registration.mjs"));
			await session.pier.session.reload();
			const runtime = session.pier.session.modelRuntime;
			await checks.that("after the reload, the retired fixture-llm is gone from the runtime", () => {
				assert.equal(runtime.getProvider("fixture-llm"), undefined, "its provider");
				assert.equal(runtime.getModel("fixture-llm", "default"), undefined, "its model");
			});
			await checks.that("a turn of the retired model fails, naming its provider", async () => {
				const { result } = await streamTurn(session, retired);
				assert.equal(result.stopReason, "error");
				assert.match(result.errorMessage ?? "", /fixture-llm/);
			});
			await checks.that("the new generation's provider-registration resolves and is the only provider", () => {
				assert.ok(runtime.getProvider("provider-registration"));
				assert.equal(runtime.getModel("provider-registration", "default")?.api, newApi);
				assert.deepEqual([...session.pier.extensionHost.registry.providers.keys()], ["provider-registration"]);
			});
			await checks.that("its turn streams the new generation's text", async () => {
				const { result } = await streamTurn(session, session.model("provider-registration"));
				assert.equal(textOf(result), "provider-registration-ok");
			});
		},
	},
	{
		n: 43,
		name: "quickjs_provider_shutdown_unregisters_resolution",
		uses: ["quickjs-provider.mjs"],
		async run(source, checks) {
			await using session = await providerSession(source, "quickjs-provider.mjs", "provider-shutdown", "fixture-llm");
			const runtime = session.pier.session.modelRuntime;
			await checks.that("fixture-llm resolves while the session runs", () => {
				assert.ok(runtime.getProvider("fixture-llm"));
				assert.ok(runtime.getModel("fixture-llm", "default"));
			});
			await session.close();
			await checks.that("the end of the session drops its provider and model from the runtime", () => {
				assert.equal(runtime.getProvider("fixture-llm"), undefined);
				assert.equal(runtime.getModel("fixture-llm", "default"), undefined);
			});
		},
	},
	{
		n: 44,
		name: "concurrent_runtimes_same_api_dispatch_isolation",
		uses: ["inline"],
		decision: "one API name per provider, held by each session's own model runtime (protocol-v1 §4.4)",
		async run(source, checks) {
			const program = (marker: string) => source.inline("isolation_provider_spec", 0, { marker });
			const options = { id: "isolation-shared", capabilities: ["provider"], model: "isolation-llm/default" };
			await using a = await openSession(program("alpha"), options);
			await using b = await openSession(program("beta"), options);
			const [runtimeA, runtimeB] = [a.pier.session.modelRuntime, b.pier.session.modelRuntime];
			const [modelA, modelB] = [a.model("isolation-llm"), b.model("isolation-llm")];
			await checks.that(
				"same extension, provider and declared api: one API name in two runtimes, the declared one unused",
				() => {
					assert.notEqual(runtimeA, runtimeB, "a model runtime per session");
					assert.equal(modelA.api, a.api("isolation-llm"));
					assert.equal(modelB.api, modelA.api);
					for (const runtime of [runtimeA, runtimeB])
						assert.deepEqual(
							runtime.getModels().filter((m) => m.api === "isolation-shared-api"),
							[],
						);
				},
			);
			await checks.that("concurrent turns: each session streams its own runtime", async () => {
				const [ta, tb] = await Promise.all([streamTurn(a, modelA), streamTurn(b, modelB)]);
				assert.equal(textOf(ta.result), "response-alpha");
				assert.equal(textOf(tb.result), "response-beta");
			});
			await checks.that("concurrent turns of the other session's model: each still answers from its own", async () => {
				const [ta, tb] = await Promise.all([streamTurn(a, modelB), streamTurn(b, modelA)]);
				assert.equal(textOf(ta.result), "response-alpha");
				assert.equal(textOf(tb.result), "response-beta");
			});
			await a.close();
			await checks.that("after A's shutdown B's runtime keeps its provider and B still answers beta", async () => {
				assert.ok(runtimeB.getProvider("isolation-llm"));
				assert.equal(textOf((await streamTurn(b, modelB)).result), "response-beta");
			});
			await checks.that("A's session fails closed, naming the provider, and never reaches B's", async () => {
				assert.equal(runtimeA.getProvider("isolation-llm"), undefined);
				const { result } = await streamTurn(a, modelA);
				assert.equal(result.stopReason, "error");
				assert.match(result.errorMessage ?? "", /isolation-llm/);
				assert.ok(!textOf(result).includes("beta"), textOf(result));
			});
			await checks.that(
				"B's runtime streams the survivor outside the agent too (as pi's compaction does); B's end drops it",
				async () => {
					const stream = runtimeB.streamSimple(modelB, { messages: [] }, {});
					assert.equal(textOf(await stream.result()), "response-beta");
					await b.close();
					assert.equal(runtimeB.getProvider("isolation-llm"), undefined);
				},
			);
		},
	},
	{
		n: 39,
		name: "quickjs_provider_unregistered_api_resolution_fails_actionably",
		uses: ["quickjs-provider-unregister.mjs"],
		decision: OWN_API_NAMES,
		async run(source, checks) {
			await using session = await unregisterSession(source, "provider-unresolved");
			const replaced = session.model("replaced");
			// pi's model runtime finds a turn's provider by the model's provider id, whatever its api, and streams
			// "Unknown provider: <id>" when the session has none.
			await checks.that('a model of gone with the declared api "gone-api": a stream error naming gone', async () => {
				const model = { ...replaced, api: "gone-api" as Api, provider: "gone" };
				const message = terminal((await streamTurn(session, model)).events);
				assert.equal(message?.stopReason, "error");
				assert.match(message?.errorMessage ?? "", /\bgone\b/);
			});
			const goneApi = session.api("gone");
			await checks.that(`a model of gone with pier's API for it (${goneApi}): the same error`, async () => {
				const model = { ...replaced, api: goneApi as Api, provider: "gone" };
				const message = terminal((await streamTurn(session, model)).events);
				assert.equal(message?.stopReason, "error");
				assert.match(message?.errorMessage ?? "", /\bgone\b/);
			});
		},
	},
];
