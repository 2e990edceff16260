/**
 * rpi's provider registration and lifecycle tests: what holds at the host (#40, #41, extension_api_conformance.rs)
 * and, in a pier session, what pi's registries hold after a load phase's unregistering (#38), a /reload (#42), the
 * end of the session (#43) and with two sessions of one process registering the same API (#44). Streaming is in
 * cases-provider-streams.ts, except #39 (resolving an API no
 * extension registers, over #38's fixture). pier's decision throughout (docs/protocol-v1.md §4.4): each provider streams through
 * an API of its own, `pier-extension/<extension>/<provider>` (`~<n>` for a later host of the same process), so
 * rpi's checks on the declared api name become checks on pier's name and on the registration's `api`.
 */
import assert from "node:assert/strict";
import { type Api, getApiProvider } from "@earendil-works/pi-ai";
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
			await checks.that("gone is in neither pi's model registry nor pi-ai's API registry", () => {
				assert.equal(session.pier.session.modelRegistry.find("gone", "default"), undefined);
				assert.equal(getApiProvider(session.api("gone") as Api), undefined);
				for (const declared of ["gone-api", "replaced-api-v1", "replaced-api-v2"])
					assert.equal(getApiProvider(declared as Api), undefined, `the declared ${declared} is never registered`);
			});
			await checks.that("replaced resolves, and the last registration answers its turns", async () => {
				assert.ok(getApiProvider(session.api("replaced") as Api));
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
			const oldApi = session.api("fixture-llm");
			const newApi = session.api("provider-registration");
			await checks.that("the first generation's fixture-llm resolves", () => assert.ok(getApiProvider(oldApi as Api)));
			session.rewrite(source.fixture("provider-registration.mjs"));
			await session.pier.session.reload();
			const registry = session.pier.session.modelRegistry;
			await checks.that("after the reload, the retired fixture-llm is unregistered everywhere", () => {
				assert.equal(getApiProvider(oldApi as Api), undefined, "pi-ai's API registry");
				assert.equal(registry.find("fixture-llm", "default"), undefined, "pi's model registry");
			});
			await checks.that("the new generation's provider-registration resolves and is the only provider", () => {
				assert.ok(getApiProvider(newApi as Api));
				assert.equal(registry.find("provider-registration", "default")?.api, newApi);
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
			const api = session.api("fixture-llm");
			const registry = session.pier.session.modelRegistry;
			await checks.that("fixture-llm resolves while the session runs", () => assert.ok(getApiProvider(api as Api)));
			await session.close();
			await checks.that("the end of the session drops it from pi-ai's and pi's registries", () => {
				assert.equal(getApiProvider(api as Api), undefined);
				assert.equal(registry.find("fixture-llm", "default"), undefined);
			});
		},
	},
	{
		n: 44,
		name: "concurrent_runtimes_same_api_dispatch_isolation",
		uses: ["inline"],
		decision: "an API of its own per provider and host (protocol-v1 §4.4)",
		async run(source, checks) {
			const program = (marker: string) => source.inline("isolation_provider_spec", 0, { marker });
			const options = { id: "isolation-shared", capabilities: ["provider"], model: "isolation-llm/default" };
			await using a = await openSession(program("alpha"), options);
			await using b = await openSession(program("beta"), options);
			const [modelA, modelB] = [a.model("isolation-llm"), b.model("isolation-llm")];
			await checks.that("same extension, provider and declared api: two API names, the declared one unused", () => {
				assert.notEqual(modelA.api, modelB.api);
				assert.equal(getApiProvider("isolation-shared-api" as Api), undefined, "no unscoped name to pick from");
			});
			await checks.that("concurrent turns: each session streams its own runtime", async () => {
				const [ta, tb] = await Promise.all([streamTurn(a, modelA), streamTurn(b, modelB)]);
				assert.equal(textOf(ta.result), "response-alpha");
				assert.equal(textOf(tb.result), "response-beta");
			});
			await a.close();
			await checks.that("after A's shutdown B still answers, and never for A's model", async () => {
				assert.equal(textOf((await streamTurn(b, modelB)).result), "response-beta");
				const stray = (await streamTurn(b, modelA)).result;
				assert.equal(stray.stopReason, "error");
				assert.ok(!textOf(stray).includes("beta"));
			});
			await checks.that("A's session fails closed, naming the api and why", async () => {
				const { result } = await streamTurn(a, modelA);
				assert.equal(result.stopReason, "error");
				assert.ok(result.errorMessage?.includes(modelA.api), result.errorMessage);
				assert.match(result.errorMessage ?? "", /no extension of this session provides "isolation-llm"/);
			});
			await checks.that("pi-ai resolves the survivor's API and it streams beta; B's end drops it", async () => {
				const survivor = getApiProvider(modelB.api);
				assert.ok(survivor, "B's API resolves");
				const stream = survivor.streamSimple(modelB, { messages: [] }, {});
				assert.equal(textOf(await stream.result()), "response-beta");
				await b.close();
				assert.equal(getApiProvider(modelB.api), undefined);
			});
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
			await checks.that('a model with the declared api "gone-api": pi-ai\'s own actionable error', async () => {
				// Not an extension's API at all, so pi-ai answers: it throws where rpi's registry streams the error
				// (pi's agent loop makes the throw the turn's error message).
				const model = { ...replaced, api: "gone-api" as Api, provider: "gone" };
				const failure = await streamTurn(session, model).then(
					({ events }) => terminal(events)?.errorMessage,
					(error: unknown) => (error instanceof Error ? error.message : String(error)),
				);
				assert.ok(failure?.includes("No API provider registered for api: gone-api"), failure);
			});
			const goneApi = session.api("gone");
			await checks.that(`a model with pier's API for gone (${goneApi}): the same error, saying why`, async () => {
				const model = { ...replaced, api: goneApi as Api, provider: "gone" };
				const message = terminal((await streamTurn(session, model)).events);
				assert.equal(message?.stopReason, "error");
				assert.ok(
					message?.errorMessage?.startsWith(`No API provider registered for api: ${goneApi} (no extension`),
					message?.errorMessage,
				);
			});
		},
	},
];
