/**
 * A plugin's own stdin/stdout. The plugin host is spawned with pier's stdin and stdout as its fds 0 and 1
 * (the protocol is on fds 3/4), so a plugin that declares `ownsStdio` can serve them. Every other plugin must
 * not see them: before the library is even opened, fd 0 becomes /dev/null and fd 1 a copy of stderr (a
 * plugin's printf lands in the diagnostics pier shows); the originals are kept aside and given back only to
 * an owner, after its registration declared it.
 */
import { close, dup, dup2, openDevNull } from "./libc.js";

export interface IsolatedStdio {
	/** Gives the plugin pier's stdin/stdout (an `ownsStdio` owner). */
	handOver(): void;
	/** Drops the kept originals (everyone else). */
	release(): void;
}

export function isolateStdio(): IsolatedStdio {
	const savedIn = dup(0);
	const savedOut = dup(1);
	const devNull = openDevNull();
	dup2(devNull, 0);
	dup2(2, 1);
	close(devNull);
	const release = () => {
		if (savedIn >= 0) close(savedIn);
		if (savedOut >= 0) close(savedOut);
	};
	return {
		handOver() {
			if (savedIn >= 0) dup2(savedIn, 0);
			if (savedOut >= 0) dup2(savedOut, 1);
			release();
		},
		release,
	};
}
