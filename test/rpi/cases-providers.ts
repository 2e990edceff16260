/**
 * rpi's provider registration tests that hold at the host (#40, #41, extension_api_conformance.rs). The guest
 * side of `registerProvider` / `unregisterProvider` is the guest-core branch's; streaming through pi's model
 * registry (#32–#39, #42–#44) is the provider-host branch's and is not ported here.
 */
import assert from "node:assert/strict";
import type { RpiCase } from "./cases.js";
import { loadOk, loadQuickJs } from "./support.js";

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
];
