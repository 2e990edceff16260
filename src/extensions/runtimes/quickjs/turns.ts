/**
 * How long one turn of QuickJS guest work may keep its worker: the frame's own work and every promise job it
 * queues. Jobs matter as much as the call: a chain that re-arms itself (from a rejection handler it even
 * catches the interrupt) would otherwise run forever after the call answered, and the worker would never
 * read the next frame.
 *
 * - A turn may run until its deadline (the invocation timeout), measured from when the turn began.
 * - Once the guest has answered every host request, what is left of the turn is idle time: jobs may run
 *   for at most `idleMs` more (work that outlives its call does not get a whole deadline).
 * - When the deadline passes, the interrupt stops the running job, and the guest gets `graceMs` to finish
 *   reporting (an interrupted tool still answers with its failure). Jobs still queued after that mean the
 *   guest does not stop: the turn reports an overrun and the worker is stopped.
 * - Idle work past `idleMs` has no call left to report to: the worker is stopped at once, whether or not the
 *   interrupt happened to break the chain (where it lands decides that, so it must not decide the outcome).
 */

/** The part of QuickJSRuntime the budget drives. */
export interface JobRunner {
	hasPendingJob(): boolean;
	executePendingJobs(maxJobsToExecute?: number): { error?: { dispose(): void }; value?: number };
}

export interface TurnLimits {
	deadlineMs: number;
	/** Default: min(1 s, deadline). */
	idleMs?: number;
	/** Default: min(250 ms, deadline). */
	graceMs?: number;
}

/** Jobs run between two looks at the clock. */
const JOB_BATCH = 64;

export class TurnBudget {
	private readonly deadlineMs: number;
	private readonly idleMs: number;
	private readonly graceMs: number;
	/** Host requests the guest has not answered: requests in minus responses out. */
	private outstanding = 0;
	private limit = Number.POSITIVE_INFINITY;
	private idle = false;
	private graced = false;
	private idleOverrun = false;

	constructor(
		private readonly runtime: JobRunner,
		limits: TurnLimits,
		private readonly now: () => number = Date.now,
	) {
		this.deadlineMs = limits.deadlineMs;
		this.idleMs = limits.idleMs ?? Math.min(1_000, limits.deadlineMs);
		this.graceMs = limits.graceMs ?? Math.min(250, limits.deadlineMs);
	}

	/** A frame from the host (counted before its turn runs). */
	received(json: string): void {
		if (json.startsWith('{"type":"request"')) this.outstanding++;
	}

	/** A frame from the guest. Its text is the guest's own: a forged response only shortens its own budget. */
	sent(json: string): void {
		if (this.outstanding > 0 && json.startsWith('{"type":"response"')) this.outstanding--;
	}

	/** The interrupt handler's answer: whether the running job is past the turn's limit. */
	interrupt(): boolean {
		const over = this.now() > this.limit;
		if (over && this.idle) this.idleOverrun = true;
		return over;
	}

	begin(): void {
		const now = this.now();
		this.limit = now + this.deadlineMs;
		this.idle = false;
		this.graced = false;
		this.idleOverrun = false;
		this.noteIdle(now);
	}

	/**
	 * Runs the turn's promise jobs until none is left; returns why the guest was stopped short, if it was.
	 * An error from a job is the guest's own (its promise rejected); it does not end the drain.
	 */
	drain(): string | undefined {
		for (;;) {
			const now = this.now();
			this.noteIdle(now);
			if (this.idle && (this.idleOverrun || now > this.limit)) return this.overrun();
			if (!this.runtime.hasPendingJob()) return this.end();
			if (now > this.limit) {
				if (this.graced) return this.overrun();
				this.graced = true;
				this.limit = now + this.graceMs;
			}
			const jobs = this.runtime.executePendingJobs(JOB_BATCH);
			jobs.error?.dispose();
		}
	}

	private noteIdle(now: number): void {
		if (this.idle || this.outstanding > 0) return;
		this.idle = true;
		this.limit = Math.min(this.limit, now + this.idleMs);
	}

	private end(): undefined {
		this.limit = Number.POSITIVE_INFINITY;
		return undefined;
	}

	private overrun(): string {
		this.limit = Number.POSITIVE_INFINITY;
		return this.idle
			? `promise jobs kept running after it had answered every call (more than ${this.idleMs} ms idle work, ` +
					"for example a promise chain that re-arms itself); its worker was stopped"
			: `promise jobs kept running past the ${this.deadlineMs} ms deadline; its worker was stopped`;
	}
}
