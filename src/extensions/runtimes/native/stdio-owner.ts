/**
 * Which native plugin owns pier's stdin/stdout (`declare.ownsStdio`): at most one per pier process. A second
 * claimant fails to start with a message naming the first; the claim ends when its plugin host does. pier's
 * CLI waits on `stdioFinished()` before it shuts the session down, and ends with the owner's code.
 */
let current: { id: string; library: string } | undefined;
/** The owner's StdioLifecycle finish code (an early finish is kept until someone asks). */
let finishedCode: number | undefined;
const waiters = new Set<(code: number | undefined) => void>();

/** undefined when the claim succeeded; else a description of the plugin that holds it. */
export function claimStdio(id: string, library: string): string | undefined {
	if (current && current.id !== id) return `extension ${current.id} (${current.library})`;
	if (current) return `an earlier instance of extension ${id} (${current.library})`;
	current = { id, library };
	finishedCode = undefined;
	return undefined;
}

/** The owner said it is done with stdio (StdioLifecycle finish). */
export function finishStdio(id: string, code: number): void {
	if (current?.id !== id || finishedCode !== undefined) return;
	finishedCode = code;
	for (const waiter of [...waiters]) waiter(code);
}

/** The owner's plugin host is gone: whoever waits for its finish stops waiting (with no code). */
export function releaseStdio(id: string): void {
	if (current?.id !== id) return;
	current = undefined;
	for (const waiter of [...waiters]) waiter(finishedCode);
}

/** Whether a native plugin owns pier's stdio now (pier then must not use them itself). */
export function stdioOwner(): string | undefined {
	return current?.id;
}

/** Resolves with the owner's finish code, or undefined when it went away without finishing (or there is none). */
export function stdioFinished(): Promise<number | undefined> {
	if (!current || finishedCode !== undefined) return Promise.resolve(finishedCode);
	return new Promise((resolve) => {
		const waiter = (code: number | undefined) => {
			waiters.delete(waiter);
			resolve(code);
		};
		waiters.add(waiter);
	});
}
