/**
 * One run of pi's `/mcp` manager answered by a script instead of a person: each menu pi opens waits in `next()`
 * until the script answers it. When the script is done, `close()` answers every further menu with "back" until
 * the manager returns.
 */
import type { McpManagerDriver, McpMenu } from "../../pi-seams/mcp-manager.js";

export interface Screen {
	/** The menu as it is now; pi rebuilds it on every change. */
	read(): McpMenu;
	/** Resolves on pi's next change notice (for example a connection that opened), or after `ms`. */
	changed(ms: number): Promise<boolean>;
	answer(value: string | undefined): void;
}

export class ManagerClosed extends Error {
	constructor() {
		super("pi's MCP manager closed");
	}
}

export class ManagerRun implements McpManagerDriver {
	/** A menu pi opened that no script took yet. */
	private pending: Screen | undefined;
	/** The menu pi waits on, taken or not. */
	private open: Screen | undefined;
	private waiters: ((screen: Screen | undefined) => void)[] = [];
	private closing = false;
	private ended = false;

	menu(build: () => McpMenu, subscribe?: (listener: () => void) => () => void): Promise<string | undefined> {
		if (this.closing) return Promise.resolve(undefined);
		return new Promise((resolve) => {
			const screen: Screen = {
				read: build,
				changed: (ms) =>
					new Promise((done) => {
						let stop: (() => void) | undefined;
						const timer = setTimeout(() => finish(false), ms);
						const finish = (seen: boolean) => {
							clearTimeout(timer);
							stop?.();
							done(seen);
						};
						stop = subscribe?.(() => finish(true));
					}),
				answer: (value) => {
					if (this.pending === screen) this.pending = undefined;
					if (this.open === screen) this.open = undefined;
					resolve(value);
				},
			};
			this.open = screen;
			const waiter = this.waiters.shift();
			if (waiter) waiter(screen);
			else this.pending = screen;
		});
	}

	// A sign-in is not run from here: it is the browser's flow, not the chamber's (yet).
	status(): void {}

	redirectUrl(): Promise<string | undefined> {
		return Promise.resolve(undefined);
	}

	/** The next menu pi opens; rejects when the manager returned without opening one. */
	next(): Promise<Screen> {
		if (this.pending) {
			const screen = this.pending;
			this.pending = undefined;
			return Promise.resolve(screen);
		}
		if (this.ended) return Promise.reject(new ManagerClosed());
		return new Promise((resolve, reject) =>
			this.waiters.push((screen) => (screen ? resolve(screen) : reject(new ManagerClosed()))),
		);
	}

	/** From now on every menu is left at once, which walks pi's manager back out. */
	close(): void {
		this.closing = true;
		this.open?.answer(undefined);
	}

	/** pi's manager returned. */
	end(): void {
		this.ended = true;
		for (const waiter of this.waiters.splice(0)) waiter(undefined);
	}
}
