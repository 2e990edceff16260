/** pi's `pi.events`: an in-process bus between handlers of this extension. */
export class EventBus {
	constructor(log) {
		this.handlers = new Map();
		this.log = log;
	}

	on(channel, handler) {
		const set = this.handlers.get(channel) ?? new Set();
		this.handlers.set(channel, set);
		set.add(handler);
		return () => set.delete(handler);
	}

	emit(channel, data) {
		for (const handler of [...(this.handlers.get(channel) ?? [])]) {
			try {
				const result = handler(data);
				if (result && typeof result.catch === "function") result.catch((e) => this.failed(channel, e));
			} catch (error) {
				this.failed(channel, error);
			}
		}
	}

	failed(channel, error) {
		this.log?.(`pi.events handler for "${channel}" failed: ${error?.stack ?? error}`);
	}
}
