/**
 * Hook names an extension may register (REFERENCES.md §6): the 33 OMP names plus rpi's trust_decision and pier's
 * permission_denied, read from the one table in kit/core/hook-table.mjs that the guests use too. An unknown name
 * fails registration.
 */
import { HOOK_NAME_LIST as TABLE_NAMES, HOOKS } from "../../../kit/core/hook-table.mjs";

export const HOOK_NAME_LIST = TABLE_NAMES as readonly HookName[];
export type HookName = keyof typeof HOOKS;
export const HOOK_NAMES: ReadonlySet<string> = new Set(HOOK_NAME_LIST);

/** Produced by pier itself (the bridge), not by pi. */
export const PIER_PRODUCED_HOOKS: ReadonlySet<string> = new Set(
	HOOK_NAME_LIST.filter((n) => HOOKS[n]?.producer === "pier"),
);

/** The hook names a pi session fires, and so the ones the bridge subscribes to. */
export const PI_HOOKS: ReadonlySet<string> = new Set(HOOK_NAME_LIST.filter((n) => !PIER_PRODUCED_HOOKS.has(n)));
