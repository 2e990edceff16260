/**
 * A module the first screen does not need, fetched on first use (a dynamic import, its own chunk). Components
 * read it with `use()`: undefined until it has arrived, then the module, and a re-render when it does.
 */
import { useEffect, useState } from "preact/hooks";

export interface LazyModule<T> {
	/** The module if it has arrived. */
	get(): T | undefined;
	/** Starts the fetch (once); resolves to the module. */
	load(): Promise<T>;
	/** The module in a component: undefined at first, then a re-render once it has arrived. */
	use(): T | undefined;
}

export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
	let loaded: T | undefined;
	let pending: Promise<T> | undefined;
	const load = (): Promise<T> => {
		pending ??= importer().then(
			(mod) => {
				loaded = mod;
				return mod;
			},
			(error: unknown) => {
				// A failed fetch (the daemon restarting, a new build) may be retried at the next use.
				pending = undefined;
				throw error;
			},
		);
		return pending;
	};
	return {
		get: () => loaded,
		load,
		use() {
			const [, setArrived] = useState(loaded !== undefined);
			useEffect(() => {
				if (loaded !== undefined) return;
				let live = true;
				load().then(
					() => live && setArrived(true),
					() => {},
				);
				return () => {
					live = false;
				};
			}, []);
			return loaded;
		},
	};
}
