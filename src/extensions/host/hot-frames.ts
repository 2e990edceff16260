/**
 * The closed shapes of the two frames every call brings back, `response` and `update`, checked by hand: the
 * same rules as their schemas in frames.ts, without the generic validator on the hot path. A frame that fails
 * here is not rejected: it takes the validator's path, which reports exactly what is wrong with it.
 */
import { isRecord } from "../protocol/json-object.js";

/** Own enumerable keys of a parsed JSON object, all of them from `allowed`; how many. */
function closedKeys(value: object, allowed: readonly string[]): number {
	let count = 0;
	for (const key in value) {
		if (!Object.hasOwn(value, key) || !allowed.includes(key)) return -1;
		count++;
	}
	return count;
}

const RESPONSE_KEYS = ["type", "id", "result"] as const;
const UPDATE_KEYS = ["type", "id", "value"] as const;
const SUCCESS_KEYS = ["status", "value"] as const;
const FAILURE_KEYS = ["status", "error"] as const;
const ERROR_KEYS = ["code", "message"] as const;

/** Exactly the `response` frame schema of frames.ts (type and a string id already checked by the caller). */
export function isResponseFrame(frame: object): boolean {
	if (closedKeys(frame, RESPONSE_KEYS) !== 3) return false;
	const result = (frame as { result: unknown }).result;
	if (!isRecord(result)) return false;
	if (result.status === "success") return Object.hasOwn(result, "status") && closedKeys(result, SUCCESS_KEYS) >= 1;
	if (result.status !== "failure" || closedKeys(result, FAILURE_KEYS) !== 2) return false;
	const error = result.error;
	return (
		isRecord(error) &&
		closedKeys(error, ERROR_KEYS) === 2 &&
		typeof error.code === "string" &&
		typeof error.message === "string"
	);
}

/** Exactly the `update` frame schema of frames.ts (type and a string id already checked by the caller). */
export function isUpdateFrame(frame: object): boolean {
	return closedKeys(frame, UPDATE_KEYS) === 3;
}
