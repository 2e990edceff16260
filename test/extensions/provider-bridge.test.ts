/**
 * bridge/providers.ts in pieces: which models a registration offers, how an answer becomes pi's AssistantMessage
 * (every malformed field named), and the load-phase checks of a provider's model list.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Api, Model } from "@earendil-works/pi-ai";
import { RegistrationBuilder } from "../../src/extensions/host/registrations.js";
import { permissions } from "../../src/extensions/protocol/capabilities.js";
import { MAX_PROVIDER_MODELS, parseExtensionFrame } from "../../src/extensions/protocol/frames.js";
import {
	DEFAULT_PROVIDER_MODEL,
	providerApiName,
	providerModels,
	toAssistantMessage,
} from "../../src/extensions/bridge/providers.js";

const model = {
	id: "m",
	name: "M",
	api: providerApiName("ext", "p"),
	provider: "p",
	baseUrl: "pier-extension://ext",
	reasoning: false,
	input: ["text"],
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	contextWindow: 1000,
	maxTokens: 100,
} as Model<Api>;

describe("the models a provider offers", () => {
	test("a declared list is offered as is, with defaults filled in", () => {
		assert.deepEqual(
			providerModels("p", [
				{ id: "small", contextWindow: 8000 },
				{ id: "large", name: "Large" },
			]),
			[
				{
					id: "small",
					name: "p/small",
					reasoning: false,
					input: ["text"],
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
					contextWindow: 8000,
					maxTokens: 4096,
				},
				{
					id: "large",
					name: "Large",
					reasoning: false,
					input: ["text"],
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
					contextWindow: 128_000,
					maxTokens: 4096,
				},
			],
		);
		const ids = providerModels("p", [{ id: "small" }], { provider: "p", id: "other" }).map((m) => m.id);
		assert.deepEqual(ids, ["small"], "--model adds nothing to a declared list");
	});

	test("without a list: the default, plus what --model asks of this provider only", () => {
		assert.deepEqual(
			providerModels("p", undefined).map((m) => m.id),
			[DEFAULT_PROVIDER_MODEL],
		);
		assert.deepEqual(
			providerModels("p", [], { provider: "p", id: "x-7b" }).map((m) => m.id),
			["default", "x-7b"],
		);
		assert.deepEqual(
			providerModels("p", undefined, { provider: "q", id: "x-7b" }).map((m) => m.id),
			["default"],
		);
		assert.deepEqual(
			providerModels("p", undefined, { provider: "p", id: "default" }).map((m) => m.id),
			["default"],
		);
	});

	test("each provider has its own API name, never the style it declares", () => {
		assert.equal(providerApiName("ext", "p"), "pier-extension/ext/p");
	});
});

describe("an answer as pi's AssistantMessage", () => {
	test("a full message keeps its content, usage and time; pi's model fields win", () => {
		const message = toAssistantMessage(
			{
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "hmm" },
					{ type: "text", text: "hi" },
				],
				api: "faux",
				provider: "stub-provider",
				model: "stub-model",
				usage: {
					input: 1,
					output: 2,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 3,
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 },
				},
				stopReason: "stop",
				timestamp: 42,
			},
			model,
		);
		assert.deepEqual(message, {
			role: "assistant",
			content: [
				{ type: "thinking", thinking: "hmm" },
				{ type: "text", text: "hi" },
			],
			api: "pier-extension/ext/p",
			provider: "p",
			model: "m",
			responseModel: "stub-model",
			usage: {
				input: 1,
				output: 2,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 3,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 },
			},
			stopReason: "stop",
			timestamp: 42,
		});
	});

	test("defaults: zero usage, a total of the counts, stop (toolUse with a call), rpi's tool_use spelling", () => {
		const text = toAssistantMessage({ content: [{ type: "text", text: "x" }], usage: { input: 2, output: 3 } }, model);
		assert.equal(text.stopReason, "stop");
		assert.equal(text.usage.totalTokens, 5);
		assert.equal(text.usage.cost.total, 0);
		const call = toAssistantMessage({ content: [{ type: "toolCall", id: "c1", name: "read" }] }, model);
		assert.equal(call.stopReason, "toolUse");
		assert.deepEqual(call.content[0], { type: "toolCall", id: "c1", name: "read", arguments: {} });
		assert.equal(toAssistantMessage({ content: [], stopReason: "tool_use" }, model).stopReason, "toolUse");
		assert.equal(toAssistantMessage({ content: [], stopReason: "length" }, model).stopReason, "length");
	});

	test("every malformed field is named", () => {
		const cases: Array<[unknown, RegExp]> = [
			[null, /expected an object, got null/],
			["hi", /expected an object, got string/],
			[{ role: "user", content: [] }, /role must be "assistant"/],
			[{ content: "hi" }, /content must be an array/],
			[{ content: [5] }, /content\[0\] must be an object/],
			[{ content: [{ type: "text" }] }, /content\[0\]\.text must be a string/],
			[{ content: [{ type: "thinking", thinking: 1 }] }, /content\[0\]\.thinking must be a string/],
			[{ content: [{ type: "image", data: "" }] }, /content\[0\]\.type must be "text", "thinking" or "toolCall"/],
			[{ content: [{ type: "toolCall", name: "x" }] }, /content\[0\]\.id must be a non-empty string/],
			[{ content: [{ type: "toolCall", id: "c", name: "" }] }, /content\[0\]\.name must be a non-empty string/],
			[
				{ content: [{ type: "toolCall", id: "c", name: "x", arguments: [] }] },
				/content\[0\]\.arguments must be an object/,
			],
			[{ content: [], stopReason: "done" }, /stopReason must be one of stop, length, toolUse, error, aborted/],
			[{ content: [], usage: 3 }, /usage must be an object/],
			[{ content: [], usage: { input: -1 } }, /usage\.input must be a non-negative number/],
			[{ content: [], usage: { cost: { total: "free" } } }, /usage\.cost\.total must be a non-negative number/],
		];
		for (const [value, message] of cases) assert.throws(() => toAssistantMessage(value, model), message);
	});
});

describe("a provider registration's models", () => {
	const builder = () => new RegistrationBuilder(new Set(["provider"]), permissions(["provider"], []));
	const register = (models: unknown[]) =>
		builder().register({ kind: "provider", provider: { id: "p", api: "a", models } } as never);

	test("ids are text without whitespace, unique; names are text", () => {
		register([{ id: "llama3.1:8b" }, { id: "org/model", name: "Org model" }]);
		assert.throws(() => register([{ id: "" }]), /provider "p" model id must not be empty/);
		assert.throws(() => register([{ id: "two words" }]), /model id "two words" contains whitespace/);
		assert.throws(() => register([{ id: "a" }, { id: "a" }]), /provider "p" lists model "a" twice/);
		assert.throws(() => register([{ id: "x".repeat(129) }]), /model id exceeds 128 bytes/);
		assert.throws(() => register([{ id: "a", name: "" }]), /provider "p" model name must not be empty/);
	});

	test(`the wire takes at most ${MAX_PROVIDER_MODELS} models, closed objects, and a baseUrl`, () => {
		const frame = (models: unknown[]) => ({
			type: "register",
			registration: { kind: "provider", provider: { id: "p", api: "a", baseUrl: "https://x", models } },
		});
		parseExtensionFrame(frame(Array.from({ length: MAX_PROVIDER_MODELS }, (_, i) => ({ id: `m${i}` }))));
		assert.throws(
			() => parseExtensionFrame(frame(Array.from({ length: MAX_PROVIDER_MODELS + 1 }, (_, i) => ({ id: `m${i}` })))),
			/invalid register frame/,
		);
		assert.throws(() => parseExtensionFrame(frame([{ id: "m", colour: "red" }])), /unknown field/);
		assert.throws(() => parseExtensionFrame(frame([{ id: "m", contextWindow: 0 }])), /invalid register frame/);
	});
});
