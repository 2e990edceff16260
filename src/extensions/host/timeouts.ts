/** The host's timeouts (rpi's defaults), all overridable through settings and the API. */
export interface Timeouts {
	handshakeMs: number;
	loadMs: number;
	initializeMs: number;
	invocationMs: number;
	hookMs: number;
	shutdownMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = {
	handshakeMs: 5_000,
	loadMs: 10_000,
	initializeMs: 15_000,
	invocationMs: 60_000,
	hookMs: 10_000,
	shutdownMs: 2_000,
};

/** rpi caps a UI request's own timeout at this. */
export const MAX_REQUEST_TIMEOUT_MS = 10 * 60 * 1000;

export function resolveTimeouts(overrides: Partial<Timeouts> = {}): Timeouts {
	const merged = { ...DEFAULT_TIMEOUTS, ...overrides };
	for (const [name, value] of Object.entries(merged)) {
		if (!Number.isFinite(value) || value <= 0) throw new RangeError(`timeout ${name} must be a positive number of ms`);
	}
	return merged;
}
