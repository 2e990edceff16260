/**
 * A protocol tool's result (and each streamed update) as pi's AgentToolResult. The value must have the
 * protocol's tool result shape (protocol-v1 §4.3: extra fields allowed, `content` text and image blocks);
 * anything else is an error naming the extension and the tool, never passed on or guessed at.
 */
import type { AgentToolResult } from "@earendil-works/pi-agent-core";
import { Type } from "typebox";
import { lazyValidator } from "../protocol/lazy-validator.js";

const Opt = Type.Optional;
const Block = Type.Union([
	Type.Object({ type: Type.Literal("text"), text: Type.String() }),
	Type.Object({ type: Type.Literal("image"), data: Type.String(), mimeType: Type.String() }),
]);
const ToolResultValue = Type.Object({
	content: Opt(Type.Array(Block)),
	details: Opt(Type.Unknown()),
	terminate: Opt(Type.Boolean()),
});
const check = lazyValidator(ToolResultValue);

export class ToolResultError extends Error {
	override name = "ToolResultError";
}

export function toToolResult(value: unknown, extensionId: string, tool: string): AgentToolResult<unknown> {
	if (!check.Check(value)) {
		const first = [...check.Errors(value)][0];
		const where = first ? `${first.instancePath || "/"} ${first.message}` : "wrong shape";
		throw new ToolResultError(
			`extension ${extensionId} tool "${tool}" returned an invalid result (${where}): expected {"content":[{"type":"text","text":…}|{"type":"image","data":…,"mimeType":…}],"details"?:…}, got ${JSON.stringify(value)?.slice(0, 200)}`,
		);
	}
	const { content, details, terminate } = value as { content?: unknown[]; details?: unknown; terminate?: boolean };
	return {
		content: (content ?? []) as AgentToolResult<unknown>["content"],
		details: details ?? {},
		...(terminate ? { terminate } : {}),
	};
}

/** What showing a result costs, as the chamber shows it (at most 50,000 characters). */
export function shownChars(result: AgentToolResult<unknown>): number {
	let chars = 0;
	for (const block of result.content) chars += block.type === "text" ? block.text.length : block.data.length;
	return Math.min(chars, 50_000);
}
