/**
 * A component that re-renders only when a prop changes (compared by identity), like React's memo. preact/compat
 * has one, but importing compat installs its option hooks for the whole app.
 */
import { Component, type FunctionComponent, h } from "preact";

export function memo<P extends object>(render: FunctionComponent<P>): FunctionComponent<P> {
	class Memo extends Component<P> {
		override shouldComponentUpdate(next: P): boolean {
			const prev = this.props as Record<string, unknown>;
			const keys = new Set([...Object.keys(prev), ...Object.keys(next)]);
			for (const key of keys) if (prev[key] !== (next as Record<string, unknown>)[key]) return true;
			return false;
		}
		override render(props: P) {
			return h(render, props);
		}
	}
	return Memo as unknown as FunctionComponent<P>;
}
