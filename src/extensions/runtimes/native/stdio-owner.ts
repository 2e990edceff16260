/**
 * Which native plugin owns pier's stdin/stdout (`declare.ownsStdio`): at most one per pier process. A second
 * claimant fails to start with a message naming the first; the claim ends when its plugin host does.
 */
let current: { id: string; library: string } | undefined;

/** undefined when the claim succeeded; else a description of the plugin that holds it. */
export function claimStdio(id: string, library: string): string | undefined {
	if (current && current.id !== id) return `extension ${current.id} (${current.library})`;
	if (current) return `an earlier instance of extension ${id} (${current.library})`;
	current = { id, library };
	return undefined;
}

export function releaseStdio(id: string): void {
	if (current?.id === id) current = undefined;
}

/** Whether a native plugin owns pier's stdio now (pier then runs headless). */
export function stdioOwner(): string | undefined {
	return current?.id;
}
