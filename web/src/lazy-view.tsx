/**
 * A view the first screen does not show (an account panel, a sheet), as a component whose code is its own chunk,
 * fetched when the view is first drawn. Until it arrives the view says it is loading; a failed fetch (the daemon
 * restarting, a newer build) says so with a retry, and the next draw fetches again.
 */
import type { ComponentType, JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { lazyModule } from "./lazy-module.js";

export function lazyView<M, P extends object>(
	importer: () => Promise<M>,
	pick: (module: M) => ComponentType<P>,
	what: string,
): (props: P) => JSX.Element {
	const module = lazyModule(importer);
	return function LazyView(props: P) {
		const [mod, setMod] = useState(module.get());
		const [error, setError] = useState<string | undefined>();
		const [attempt, setAttempt] = useState(0);
		useEffect(() => {
			if (mod) return;
			let live = true;
			module.load().then(
				(m) => live && setMod(m),
				(err: unknown) => live && setError((err as Error).message || String(err)),
			);
			return () => {
				live = false;
			};
		}, [mod, attempt]);
		if (mod) {
			const View = pick(mod);
			return <View {...props} />;
		}
		if (error)
			return (
				<p class="lazy-view-error" role="alert">
					{what} did not load: {error}.{" "}
					<button
						type="button"
						onClick={() => {
							setError(undefined);
							setAttempt((n) => n + 1);
						}}
					>
						Retry
					</button>
				</p>
			);
		return (
			<p class="lazy-view-loading" aria-busy="true">
				Loading {what}…
			</p>
		);
	};
}
